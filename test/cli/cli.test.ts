import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { isWellFormedApiKey } from '../../src/core/accounts/api-keys';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';
import { buildOnce } from '../ops/service-process';

const run = promisify(execFile);
const root = path.join(__dirname, '../..');
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  buildOnce();
}, 60_000);
afterAll(() => db.drop());

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', ['dist/src/cli.js', ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.url, NODE_ENV: 'test' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('user:create prints the User object as JSON; key:create prints the full key once', async () => {
  const created = await cli(
    'user:create',
    '--email',
    'Ops@Example.com',
    '--password',
    'longenough',
    '--plan',
    'vip',
    '--tokens',
    '500',
    '--bonus',
    '25',
  );
  expect(created.code).toBe(0);
  const user = JSON.parse(created.stdout);
  expect(user).toMatchObject({
    email: 'ops@example.com',
    plan: 'vip',
    token_balance: 525,
    token_limit: 8000,
    rate_limit_hourly: 100,
    rate_limit_daily: 1000,
    auth_methods: { email: true, messenger: false, identity_provider: false },
  });
  expect(Number.isInteger(user.id)).toBe(true);

  const key = await cli('key:create', '--user', String(user.id), '--name', 'ci');
  expect(key.code).toBe(0);
  const body = JSON.parse(key.stdout);
  expect(Object.keys(body).sort()).toEqual(['created_at', 'id', 'key', 'name']);
  expect(body.key).toHaveLength(48);
  expect(isWellFormedApiKey(body.key)).toBe(true);

  const granted = JSON.parse((await cli('user:grant', '--user', String(user.id), '--bonus', '10')).stdout);
  expect(granted.token_balance).toBe(535);
  const moved = JSON.parse((await cli('user:plan', '--user', String(user.id), '--plan', 'basic')).stdout);
  expect(moved).toMatchObject({ plan: 'basic', token_limit: 1000, token_balance: 1000 + 35 });
}, 30_000);

test('a Starter user gets the 50-token grant unless --bonus says otherwise', async () => {
  const starter = JSON.parse((await cli('user:create', '--email', 'starter@example.com', '--plan', 'free')).stdout);
  expect(starter).toMatchObject({ plan: 'free', token_balance: 50, plan_expires_at: null });
  const empty = JSON.parse((await cli('user:create', '--email', 'empty@example.com', '--plan', 'free', '--bonus', '0')).stdout);
  expect(empty.token_balance).toBe(0);
}, 30_000);

test('plans go by the names the dashboard shows: starter is the free plan (free stays an alias), any case', async () => {
  const starter = await cli('user:create', '--email', 'named-starter@example.com', '--plan', 'starter');
  expect(starter.code).toBe(0);
  // The User object keeps the API's plan value; plan_name is what the dashboard and the bot call it.
  expect(JSON.parse(starter.stdout)).toMatchObject({ plan: 'free', plan_name: 'Starter', token_balance: 50 });
  const id = String(JSON.parse(starter.stdout).id);
  expect(JSON.parse((await cli('user:plan', '--user', id, '--plan', 'VIP')).stdout)).toMatchObject({ plan: 'vip', plan_name: 'VIP' });
  expect(JSON.parse((await cli('user:plan', '--user', id, '--plan', 'Starter')).stdout)).toMatchObject({
    plan: 'free',
    plan_name: 'Starter',
  });
  expect(JSON.parse((await cli('user:plan', '--user', id, '--plan', 'free')).stdout)).toMatchObject({ plan: 'free', plan_name: 'Starter' });
  const wrong = await cli('user:plan', '--user', id, '--plan', 'gold');
  expect(wrong.code).not.toBe(0);
  expect(wrong.stderr).toMatch(/unknown plan "gold".*starter, basic, pro, vip, elite/);
}, 30_000);

test('--help, help and <command> --help print usage on stdout and exit 0; the overview names every command', async () => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const out = await cli(...args);
    expect({ args, code: out.code, stderr: out.stderr }).toEqual({ args, code: 0, stderr: '' });
    expect(out.stdout).toMatch(/^usage: nebula-gen <command>/);
    for (const name of [
      'user:create',
      'user:grant',
      'user:plan',
      'key:create',
      'models:list',
      'articles:list',
      'articles:set',
      'catalog:set',
      'catalog:check',
    ]) {
      expect(out.stdout).toContain(`  ${name} `);
    }
    expect(out.stdout).toContain('starter, basic, pro, vip, elite');
  }
  for (const args of [
    ['user:create', '--help'],
    ['help', 'user:create'],
    ['user:create', '--email', 'x@example.com', '-h'],
  ]) {
    const out = await cli(...args);
    expect({ args, code: out.code, stderr: out.stderr }).toEqual({ args, code: 0, stderr: '' });
    expect(out.stdout).toMatch(/^usage: nebula-gen user:create --email E .*--plan starter\|basic\|pro\|vip\|elite/);
    expect(out.stdout).toContain('--password-stdin');
  }
  // Asking for help creates nothing.
  const [{ n }] = await db.dataSource.query(`SELECT count(*)::int AS n FROM users WHERE email = 'x@example.com'`);
  expect(n).toBe(0);

  const unknownTopic = await cli('help', 'user:delete');
  expect({ code: unknownTopic.code, stdout: unknownTopic.stdout }).toEqual({ code: 2, stdout: '' });
  expect(unknownTopic.stderr).toMatch(/^unknown command "user:delete"/);
  const none = await cli();
  expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 2, stdout: '' });
  expect(none.stderr).toMatch(/^usage: /);
}, 30_000);

test('bad input exits non-zero with a message and prints nothing on stdout', async () => {
  const badPlan = await cli('user:create', '--email', 'x@example.com', '--plan', 'gold');
  expect(badPlan.code).not.toBe(0);
  expect(badPlan.stdout).toBe('');
  expect(badPlan.stderr).toMatch(/unknown plan "gold"/);

  const dup = await cli('user:create', '--email', 'starter@example.com', '--plan', 'free');
  expect(dup.code).not.toBe(0);
  expect(dup.stderr).toMatch(/already exists/);

  const noUser = await cli('key:create', '--user', '999999', '--name', 'x');
  expect(noUser.code).not.toBe(0);
  expect(noUser.stderr).toMatch(/no user/);

  const unknown = await cli('user:delete');
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/usage/);
}, 30_000);

test('models:list prints the whole catalog', async () => {
  const out = await cli('models:list');
  const body = JSON.parse(out.stdout);
  expect(body.total).toBe(CATALOG_SHAPE.models);
  expect(body.models).toHaveLength(CATALOG_SHAPE.models);
});

test('articles:list and articles:set: operators edit prices and what is sold; bad input exits non-zero', async () => {
  const list = JSON.parse((await cli('articles:list')).stdout);
  expect(list.articles.map((a: { id: string }) => a.id)).toContain('tokens-500');
  const set = await cli('articles:set', '--id', 'tokens-500', '--price', '549.50', '--stars', '280', '--title', '500 tokens (sale)');
  expect(set.code).toBe(0);
  expect(JSON.parse(set.stdout)).toMatchObject({
    id: 'tokens-500',
    price: { amount: 549.5, currency: 'RUB' },
    stars: 280,
    title: '500 tokens (sale)',
    active: true,
  });
  const off = JSON.parse((await cli('articles:set', '--id', 'tokens-100', '--active', 'false')).stdout);
  expect(off.active).toBe(false);
  for (const args of [
    ['--id', 'tokens-7'],
    ['--id', 'tokens-500', '--price', '-1'],
    ['--id', 'tokens-500', '--stars', 'x'],
    ['--id', 'tokens-500', '--active', 'maybe'],
    [],
  ]) {
    const bad = await cli('articles:set', ...args);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.length).toBeGreaterThan(0);
  }
});

test('models:list answers as GET /api/v2/models does: a model taken out of service with catalog:set is not listed', async () => {
  const slug = (JSON.parse((await cli('models:list')).stdout) as { models: { slug: string }[] }).models[0]!.slug;
  expect((await cli('catalog:set', '--slug', slug, '--enabled', 'false')).code).toBe(0);
  try {
    const body = JSON.parse((await cli('models:list')).stdout) as { models: { slug: string }[]; total: number };
    expect(body.models.map((m) => m.slug)).not.toContain(slug);
    expect(body.total).toBe(CATALOG_SHAPE.models - 1);
  } finally {
    expect((await cli('catalog:set', '--slug', slug, '--enabled', 'true')).code).toBe(0);
  }
});

test('user:admin --on / --off sets is_admin, prints the User object and writes the audit log; bad input changes nothing', async () => {
  const user = JSON.parse((await cli('user:create', '--email', 'admin-cli@example.com', '--plan', 'free')).stdout);
  expect(user.is_admin).toBe(false);
  const on = await cli('user:admin', '--user', String(user.id), '--on');
  expect(on.code).toBe(0);
  expect(JSON.parse(on.stdout)).toMatchObject({ id: user.id, is_admin: true });
  const off = JSON.parse((await cli('user:admin', '--user', String(user.id), '--off')).stdout);
  expect(off.is_admin).toBe(false);
  expect((await cli('user:admin', '--user', String(user.id))).code).not.toBe(0);
  expect((await cli('user:admin', '--user', String(user.id), '--on', '--off')).code).not.toBe(0);
  expect((await cli('user:admin', '--user', '999999', '--on')).code).not.toBe(0);
  const rows = await db.dataSource.query(
    `SELECT actor_user_id, actor_label, door, action, before, after FROM admin_audit_log WHERE target_type = 'user' AND target_id = $1 ORDER BY id`,
    [String(user.id)],
  );
  expect(rows).toEqual([
    { actor_user_id: null, actor_label: 'cli', door: 'cli', action: 'user.admin', before: { is_admin: false }, after: { is_admin: true } },
    { actor_user_id: null, actor_label: 'cli', door: 'cli', action: 'user.admin', before: { is_admin: true }, after: { is_admin: false } },
  ]);
}, 30_000);

test('user:grant, user:plan and catalog:price write the audit log as the CLI; bad input changes nothing and writes none', async () => {
  const user = JSON.parse((await cli('user:create', '--email', 'audited-cli@example.com', '--plan', 'free')).stdout);
  const id = String(user.id);
  const rows = () =>
    db.dataSource.query(`SELECT actor_label, door, action, before, after FROM admin_audit_log WHERE target_id = $1 ORDER BY id`, [id]);
  for (const args of [
    ['user:grant', '--user', id, '--bonus', '1000001'],
    ['user:grant', '--user', id, '--bonus', '5', '--reason', 'r'.repeat(501)],
    ['user:plan', '--user', id, '--plan', 'pro', '--expires-at', '2020-01-01T00:00:00Z'],
    ['user:plan', '--user', id, '--plan', 'pro', '--expires-at', 'soon'],
  ]) {
    const out = await cli(...args);
    expect({ args, code: out.code }).toEqual({ args, code: 1 });
    expect(out.stderr).toMatch(/^error: /);
  }
  expect(await rows()).toEqual([]);

  expect(JSON.parse((await cli('user:grant', '--user', id, '--bonus', '25', '--reason', 'refund for ticket 7')).stdout).token_balance).toBe(
    75,
  );
  const until = new Date(Date.now() + 60 * 86_400_000).toISOString();
  const moved = JSON.parse((await cli('user:plan', '--user', id, '--plan', 'pro', '--expires-at', until)).stdout);
  expect(moved).toMatchObject({ plan: 'pro', plan_expires_at: until });
  expect(await rows()).toEqual([
    {
      actor_label: 'cli',
      door: 'cli',
      action: 'user.grant',
      before: { token_balance: 50, plan_tokens: 0, bonus_tokens: 50 },
      after: { token_balance: 75, plan_tokens: 0, bonus_tokens: 75, granted: 25, reason: 'refund for ticket 7' },
    },
    {
      actor_label: 'cli',
      door: 'cli',
      action: 'user.plan',
      before: expect.objectContaining({ plan: 'free' }),
      after: expect.objectContaining({ plan: 'pro', plan_expires_at: until }),
    },
  ]);

  const slug = 'flux-dev';
  const priceRows = () =>
    db.dataSource.query(`SELECT actor_label, action, before, after FROM admin_audit_log WHERE action = 'catalog.price' ORDER BY id`);
  expect((await cli('catalog:price', '--slug', slug, '--factor', '0', '--reason', 'free')).code).not.toBe(0);
  expect(await priceRows()).toEqual([]);
  expect((await cli('catalog:price', '--slug', slug, '--factor', '1.5', '--reason', 'launch week')).code).toBe(0);
  expect((await cli('catalog:price', '--slug', slug, '--clear')).code).toBe(0);
  expect(await priceRows()).toEqual([
    {
      actor_label: 'cli',
      action: 'catalog.price',
      before: expect.objectContaining({ override: null }),
      after: { override: { by: 'operator', factor: 1.5, reason: 'launch week' } },
    },
    {
      actor_label: 'cli',
      action: 'catalog.price',
      before: expect.objectContaining({ override: expect.objectContaining({ by: 'operator', factor: 1.5 }) }),
      after: { override: null },
    },
  ]);
}, 60_000);
