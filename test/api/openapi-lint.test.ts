// Redocly's linter over the served document (issue 26: 5 errors for webhook entries without `security`, and 15
// warnings). It runs offline from the devDependency, with the repository's redocly.yaml (the recommended rules).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiHarness, startApi } from './harness';

type Json = Record<string, any>;

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

const ROOT = path.join(__dirname, '../..');
let api: ApiHarness;
let doc: Json;
let dir: string;

beforeAll(async () => {
  api = await startApi();
  doc = (await api.request('GET', '/api/v2/openapi.json')).body;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redocly-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await api.close();
});

function lint(document: Json): LintReport {
  const file = path.join(dir, `openapi-${crypto.randomUUID()}.json`);
  fs.writeFileSync(file, JSON.stringify(document));
  const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
  const args = [cli, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  let out: string;
  try {
    out = execFileSync(process.execPath, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    // A document with errors exits 1; the report is on stdout all the same.
    out = (err as { stdout: string }).stdout;
  }
  return JSON.parse(out.slice(out.indexOf('{'))) as LintReport;
}

const summary = (report: LintReport) => report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);

test('the served document lints clean: 0 errors, 0 warnings', () => {
  const report = lint(doc);
  expect(summary(report)).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
}, 60_000);

test('the lint has teeth: a webhook without `security` is an error again', () => {
  const broken = JSON.parse(JSON.stringify(doc)) as Json;
  const [first] = Object.values(broken.webhooks as Json) as Json[];
  delete first.post.security;
  const report = lint(broken);
  expect(report.totals.errors).toBe(1);
  expect(report.problems.map((p) => p.ruleId)).toEqual(['security-defined']);
}, 60_000);
