import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { hashPassword } from '../../src/core/accounts/passwords';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { requireModel } from '../../src/core/catalog/catalog';
import { priceChatUsage, quoteGeneration } from '../../src/core/catalog/pricing';
import { normalizeGenerateParams } from '../../src/core/catalog/params';
import { ApiHarness, expectErrorShape, startApi } from '../api/harness';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';
import { buildOnce, ServiceProcess, startServiceProcess, tempDir } from '../ops/service-process';

// An operator retires models with `catalog:set` (a separate process writing PostgreSQL). Every instance hears the
// change (NOTIFY) and serves requests for the retired slug by its replacement, at the replacement's price, saying
// so; a retired model without a replacement answers 410. A fresh process (a restart) reads the same state.

const run = promisify(execFile);
const root = path.join(__dirname, '../..');
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

let a: ApiHarness;
let b: ApiHarness;
const processes: ServiceProcess[] = [];

async function catalogSet(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run('node', ['dist/src/cli.js', 'catalog:set', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: a.db.url, NODE_ENV: 'test' },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Runs `catalog:set` and waits until instance B heard the change and reloaded (an event, not a timer). */
async function setAndHear(...args: string[]): Promise<Record<string, unknown>> {
  const heard = b.services.catalog.nextReload(10_000);
  const printed = await catalogSet(...args);
  await heard;
  return printed;
}

beforeAll(async () => {
  buildOnce();
  a = await startApi();
  b = await startApi({}, { sameDatabaseAs: a });
  for (const api of [a, b]) await api.services.catalog.load();
}, 60_000);

afterAll(async () => {
  for (const p of processes) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await b?.close();
  await a?.close();
});

test('catalog:set --replacement --shutdown-at yesterday: /v1 on another instance is answered by the replacement, at its price', async () => {
  const printed = await setAndHear('--slug', 'claude-sonnet-4-6', '--replacement', 'claude-opus-4-8', '--shutdown-at', yesterday);
  expect(printed).toMatchObject({
    slug: 'claude-sonnet-4-6',
    shutdown_at: yesterday,
    replacement: 'claude-opus-4-8',
    retired: true,
    served_by: 'claude-opus-4-8',
  });
  // The CLI's change is an admin action: one audit row, door cli.
  expect(
    await a.db.dataSource.query(
      `SELECT actor_label, door, after FROM admin_audit_log WHERE action = 'catalog.update' AND target_id = 'claude-sonnet-4-6'`,
    ),
  ).toEqual([
    {
      actor_label: 'cli',
      door: 'cli',
      after: expect.objectContaining({ replacement: 'claude-opus-4-8', shutdown_at: yesterday }),
    },
  ]);

  const account = await b.account('vip');
  const key = await b.apiKey(account);
  const res = await b.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'hello there' }] },
  });
  expect(res.status).toBe(200);
  expect(res.body.model).toBe('claude-opus-4-8');
  expect(res.headers.get('x-model-replaced')).toBe('claude-sonnet-4-6->claude-opus-4-8');
  const usage = { promptTokens: res.body.usage.prompt_tokens, completionTokens: res.body.usage.completion_tokens };
  const expected = priceChatUsage(requireModel('claude-opus-4-8'), usage);
  expect(expected).not.toBe(priceChatUsage(requireModel('claude-sonnet-4-6'), usage));
  expect(res.body.service.tokens_spent).toBe(expected);

  const [row] = await b.db.dataSource.query(
    `SELECT id, model_slug, tokens_spent FROM generations WHERE user_id = $1 ORDER BY id DESC LIMIT 1`,
    [account.user.id],
  );
  expect(row).toMatchObject({ model_slug: 'claude-opus-4-8', tokens_spent: expected });
  const token = await b.accessToken(account);
  const view = await b.request('GET', `/api/v2/generate/${row.id}`, { token });
  expect(view.body.warnings).toEqual([
    { type: 'model-replaced', requested: 'claude-sonnet-4-6', model: 'claude-opus-4-8', message: expect.stringContaining('is retired') },
  ]);

  // The retired slug is hidden from the lists, but still described with what serves it.
  const listed = await b.request('GET', '/v1/models', { token: key });
  expect(listed.body.data.map((m: { id: string }) => m.id)).not.toContain('claude-sonnet-4-6');
  const described = await a.request('GET', '/v1/models/claude-sonnet-4-6', { token: key });
  expect(described.body).toMatchObject({
    id: 'claude-sonnet-4-6',
    upstream_id: 'claude-sonnet-4-6',
    shutdown_at: yesterday,
    replacement: 'claude-opus-4-8',
  });
  const models = await a.request('GET', '/api/v2/models', { token });
  expect(models.body.total).toBe(CATALOG_SHAPE.models - 1);
  expect(models.body.models.map((m: { slug: string }) => m.slug)).not.toContain('claude-sonnet-4-6');
});

test('/api/v2/generate for a retired image model runs its replacement, billed at the replacement price, with the header and a warning', async () => {
  await setAndHear('--slug', 'sd-3.5-large', '--replacement', 'flux-dev', '--shutdown-at', yesterday);
  const account = await a.account('vip');
  const token = await a.accessToken(account);
  const res = await a.request('POST', '/api/v2/generate', { token, body: { model: 'sd-3.5-large', prompt: 'a lighthouse' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-model-replaced')).toBe('sd-3.5-large->flux-dev');
  expect(res.body).toMatchObject({ status: 'completed', model_slug: 'flux-dev' });
  const quote = (slug: string) =>
    quoteGeneration(requireModel(slug), normalizeGenerateParams(requireModel(slug), { model: slug, prompt: 'x' }));
  const fluxPrice = quote('flux-dev');
  expect(fluxPrice).not.toBe(quote('sd-3.5-large'));
  expect(res.body.tokens_spent).toBe(fluxPrice);
  expect(res.body.warnings).toEqual([
    { type: 'model-replaced', requested: 'sd-3.5-large', model: 'flux-dev', message: expect.stringContaining('sd-3.5-large is retired') },
  ]);
});

test('a retired model without a replacement answers 410 model_retired with its shutdown date, on both doors', async () => {
  await setAndHear('--slug', 'grok-3-mini', '--shutdown-at', yesterday);
  const account = await b.account('vip');
  const key = await b.apiKey(account);
  const v1 = await b.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: 'grok-3-mini', messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(v1.status).toBe(410);
  expect(v1.body.error).toMatchObject({ code: 'model_retired' });
  const token = await a.accessToken(account);
  const generate = await a.request('POST', '/api/v2/generate', { token, body: { model: 'sdxl', prompt: 'x' } });
  expect(generate.status).toBe(200);
  await setAndHear('--slug', 'sdxl', '--enabled', 'false');
  const refused = await a.request('POST', '/api/v2/generate', { token, body: { model: 'sdxl', prompt: 'x' } });
  expectErrorShape(refused, 410, 'model_retired');
  expect(refused.body.shutdown_at).toBeNull();
  const v2 = await a.request('POST', '/api/v2/generate/stream', { token, body: { model: 'grok-3-mini', prompt: 'x' } });
  expectErrorShape(v2, 410, 'model_retired');
  expect(v2.body.shutdown_at).toBe(yesterday);
});

test('catalog:set refuses what it cannot do, with a message and exit code 1', async () => {
  const bad = (args: string[]) =>
    run('node', ['dist/src/cli.js', 'catalog:set', ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: a.db.url, NODE_ENV: 'test' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
  expect(await bad(['--slug', 'nope', '--enabled', 'false'])).toMatchObject({ code: 1, stderr: expect.stringContaining('unknown model') });
  expect(await bad(['--slug', 'claude-sonnet-4-6', '--replacement', 'flux-dev'])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('text model'),
  });
  expect(await bad(['--slug', 'claude-sonnet-4-6', '--shutdown-at', 'soon'])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('YYYY-MM-DD'),
  });
  expect(await bad(['--slug', 'claude-sonnet-4-6'])).toMatchObject({ code: 1 });
});

test('a restarted service reads the overrides at start: its warning names the retired models and it serves the replacement', async () => {
  const service = await startServiceProcess({ DATABASE_URL: a.db.url, DATA_DIR: tempDir('ng-catalog-') });
  processes.push(service);
  // One line on the first screen names them all (the details are at debug level).
  const warnings = service.lines.filter((l) => l.includes('"level":40') && l.includes('models retired or shutting down'));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain('claude-sonnet-4-6 (retired: served by claude-opus-4-8)');
  expect(warnings[0]).toContain('grok-3-mini (retired: answers 410)');

  const email = `restart-${crypto.randomBytes(4).toString('hex')}@example.com`;
  await createUser(a.db.dataSource, new PlanDirectory(a.db.dataSource), {
    name: 'Restart',
    email,
    passwordHash: await hashPassword('restart-password'),
    plan: 'vip',
    planTokens: 500,
    bonusTokens: 0,
  });
  const login = await fetch(`${service.baseUrl}/api/v2/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'restart-password' }),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };
  const res = await fetch(`${service.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-model-replaced')).toBe('claude-sonnet-4-6->claude-opus-4-8');
  expect(((await res.json()) as { model: string }).model).toBe('claude-opus-4-8');
}, 60_000);
