import fs from 'node:fs';
import path from 'node:path';
import type { ProviderAdapter } from '../../src/core/providers/adapter';
import { PROVIDER_NAMES } from '../../src/core/providers/registry';

// docs/architecture.md's "Where do I add…" table and its vendor recipe, held against the code.

const ROOT = path.resolve(__dirname, '../..');
const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');

/** The text of a `## ` section of the document, up to the next one. */
function section(title: string): string {
  const start = doc.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`docs/architecture.md has no section "${title}"`);
  const end = doc.indexOf('\n## ', start + 3);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** Every field of the adapter type: a new field fails the type check here until it is listed. */
const ADAPTER_FIELDS: Record<keyof ProviderAdapter, true> = {
  name: true,
  defaultBaseUrl: true,
  faults: true,
  models: true,
  prices: true,
  capabilities: true,
  chat: true,
  media: true,
};

test('every path the "Where do I add…" table names exists (for each vendor where it says <vendor>)', () => {
  const paths = [...section('Where do I add').matchAll(/`([^`\s]+\/[^`\s]*)`/g)].map((m) => m[1]!);
  expect(paths.length).toBeGreaterThan(10);
  const missing = paths.flatMap((p) => {
    const expanded = p.includes('<vendor>') ? PROVIDER_NAMES.map((v) => p.replace('<vendor>', v)) : [p];
    // Other placeholders (<resource>, <screen>, <Page>) name a file to write: its folder must be there.
    return expanded
      .map((e) => (/<\w+>/.test(e) ? path.dirname(e.slice(0, e.indexOf('<'))) || e : e))
      .filter((e) => !fs.existsSync(path.join(ROOT, e)));
  });
  expect(missing).toEqual([]);
});

test('the vendor recipe names every field of the adapter definition (ProviderAdapter)', () => {
  const recipe = section('Add a vendor');
  expect(Object.keys(ADAPTER_FIELDS).filter((field) => !recipe.includes(`\`${field}\``))).toEqual([]);
});
