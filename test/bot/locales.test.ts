import fs from 'node:fs';
import path from 'node:path';
import { BOT_LOCALES, I18n } from '../../src/bot/i18n';

const SRC = path.resolve(__dirname, '../../src/bot');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every `t('key')`, `ctx.t('key')`, `w.t('key')` in the bot's code. */
function keysUsedInCode(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\bt\(\s*'([a-z0-9-]+)'/g)) {
      used.set(m[1], [...(used.get(m[1]) ?? []), path.relative(SRC, file)]);
    }
  }
  return used;
}

const i18n = I18n.load();

test('the bot code finds its texts: it uses a good number of keys, all as literals', () => {
  expect(keysUsedInCode().size).toBeGreaterThan(100);
  // A key built at run time could not be checked below: every t(...) call names its key literally.
  for (const file of sourceFiles(SRC).filter((f) => !f.endsWith('i18n.ts'))) {
    const dynamic = [...fs.readFileSync(file, 'utf8').matchAll(/\bt\(\s*([^'\s)][^,)]*)/g)].map((m) => m[1]);
    expect({ file: path.relative(SRC, file), dynamic }).toEqual({ file: path.relative(SRC, file), dynamic: [] });
  }
});

test.each(BOT_LOCALES)('every key used in code exists in %s.ftl', (locale) => {
  const missing = [...keysUsedInCode().entries()]
    .filter(([key]) => !i18n.has(locale, key))
    .map(([key, files]) => `${key} (${files.join(', ')})`);
  expect(missing).toEqual([]);
});

test('both locale files have exactly the same keys, and none is unused', () => {
  const en = new Set(i18n.keys('en'));
  const ru = new Set(i18n.keys('ru'));
  expect([...en].filter((k) => !ru.has(k))).toEqual([]);
  expect([...ru].filter((k) => !en.has(k))).toEqual([]);
  const used = keysUsedInCode();
  // A message another message references (`{ failure-timeout }`) is used through it.
  const source = fs.readFileSync(path.resolve(__dirname, '../../locales/en.ftl'), 'utf8');
  for (const m of source.matchAll(/\{ ([a-z][a-z0-9-]*) \}/g)) used.set(m[1], ['en.ftl']);
  expect([...en].filter((k) => !used.has(k))).toEqual([]);
});

test('every message formats in both languages with the variables it declares, and differs between them', () => {
  // A message's variables: its own placeholders and selectors, and those of the messages it references.
  const variables = (source: string, key: string): string[] => {
    const block = new RegExp(`^${key} =([\\s\\S]*?)(?=^[a-z][a-z0-9-]* =|^#|(?![\\s\\S]))`, 'm').exec(source)?.[1] ?? '';
    const own = [...block.matchAll(/\{ \$([A-Za-z]+) (?:\}|->)/g)].map((m) => m[1]);
    const referenced = [...block.matchAll(/\{ ([a-z][a-z0-9-]*) \}/g)].flatMap((m) => variables(source, m[1]));
    return [...new Set([...own, ...referenced])].sort();
  };
  const dir = path.resolve(__dirname, '../../locales');
  const en = fs.readFileSync(path.join(dir, 'en.ftl'), 'utf8');
  const ru = fs.readFileSync(path.join(dir, 'ru.ftl'), 'utf8');
  const same: string[] = [];
  let declared = 0;
  for (const key of i18n.keys('en')) {
    declared += variables(en, key).length;
    // The same placeholders in both languages: the code passes one set of arguments.
    expect({ key, vars: variables(ru, key) }).toEqual({ key, vars: variables(en, key) });
    const args = Object.fromEntries(variables(en, key).map((v) => [v, `<${v}>`]));
    const a = i18n.t('en', key, args);
    const b = i18n.t('ru', key, args);
    expect(a).not.toContain('{');
    expect(b).not.toContain('{');
    if (a === b) same.push(key);
  }
  expect(declared).toBeGreaterThan(100);
  // Only language-neutral texts may read the same (emoji, numbers, names).
  expect(same.sort()).toEqual([
    'button-resend',
    'chat-thinking',
    'model-button-locked',
    'persona-line',
    'persona-line-own',
    'quality-hd',
    'tools-selected',
  ]);
});
