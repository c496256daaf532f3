// The console's accounts routes through HTTP: search, one account's page, and (each audited) grant, plan, block and
// sessions. An admin's web session only; bad input is a 400 with nothing changed and nothing in the audit log.
import { searchConditions } from '../../src/core/admin/user-desk';
import { UserEntity } from '../../src/db/entities';
import { ApiHarness, expectErrorShape, insertGeneration, startApi, type TestAccount } from '../api/harness';

let api: ApiHarness;
let admin: TestAccount;
let adminToken: string;
let userToken: string;

beforeAll(async () => {
  api = await startApi();
  admin = await api.account('vip');
  await api.db.dataSource.query('UPDATE users SET is_admin = true WHERE id = $1', [admin.user.id]);
  adminToken = await api.accessToken(admin);
  userToken = await api.accessToken(await api.account('free'));
});
afterAll(() => api.close());

const ds = () => api.db.dataSource;
test.each([
  ['GET', '/api/v2/admin/users'],
  ['GET', '/api/v2/admin/users/1'],
])('%s %s: 403 admin_required for a non-admin and for an admin’s API key', async (method, path) => {
  expectErrorShape(await api.request(method, path, { token: userToken }), 403, 'admin_required');
  expectErrorShape(await api.request(method, path, { token: await api.apiKey(admin) }), 403, 'admin_required');
  expectErrorShape(await api.request(method, path), 401, 'not_authenticated');
});

test('search: by id, email prefix in any case, Telegram id, username with or without @, phone', async () => {
  const found = await api.account('pro', { phone: '+79991234567', name: 'Searched' });
  await ds().query(`UPDATE users SET telegram_id = 777000111222, messenger_username = 'Search_Me' WHERE id = $1`, [found.user.id]);
  const other = await api.account('free');
  const ids = async (q: string) => {
    const res = await api.request('GET', `/api/v2/admin/users?q=${encodeURIComponent(q)}`, { token: adminToken });
    expect(res.status).toBe(200);
    return (res.body.items as { id: number }[]).map((u) => u.id);
  };
  expect(await ids(String(found.user.id))).toContain(found.user.id);
  expect(await ids(found.email.toUpperCase())).toEqual([found.user.id]);
  expect(await ids(found.email.slice(0, found.email.indexOf('@')).toUpperCase())).toEqual([found.user.id]);
  expect(await ids('777000111222')).toEqual([found.user.id]);
  expect(await ids('@search_me')).toEqual([found.user.id]);
  expect(await ids('SEARCH_ME')).toEqual([found.user.id]);
  expect(await ids('+7 999 123-45-67')).toEqual([found.user.id]);
  expect(await ids('79991234567')).toEqual([found.user.id]);
  expect(await ids('nobody-like-this@nowhere')).toEqual([]);
  expect(await ids('%')).toEqual([]);

  const res = await api.request('GET', `/api/v2/admin/users?q=${found.user.id}`, { token: adminToken });
  expect(res.body.items.find((u: { id: number }) => u.id === found.user.id)).toEqual(
    expect.objectContaining({
      id: found.user.id,
      email: found.email,
      telegram_id: '777000111222',
      telegram_username: 'Search_Me',
      phone: '+79991234567',
      plan: 'pro',
      plan_expires_at: expect.any(String),
      token_balance: expect.any(Number),
      plan_tokens_remaining: expect.any(Number),
      bonus_tokens: 0,
      is_admin: false,
      blocked: false,
      blocked_reason: null,
      created_at: expect.any(String),
    }),
  );

  // Every account, newest first, page by page.
  const first = await api.request('GET', '/api/v2/admin/users?limit=1', { token: adminToken });
  expect(first.body.items.map((u: { id: number }) => u.id)).toEqual([other.user.id]);
  const second = await api.request('GET', `/api/v2/admin/users?limit=1&cursor=${first.body.next_cursor}`, { token: adminToken });
  expect(second.body.items.map((u: { id: number }) => u.id)).toEqual([found.user.id]);
  expectErrorShape(await api.request('GET', '/api/v2/admin/users?cursor=nope', { token: adminToken }), 400, 'validation_error');
  expectErrorShape(await api.request('GET', '/api/v2/admin/users?limit=0', { token: adminToken }), 400, 'validation_error');
});

test('every reading of a search comes from an index: no search reads the whole users table', async () => {
  const runner = ds().createQueryRunner();
  try {
    // Tiny test tables are cheaper to scan: forbid the scan, and a plan that still needs one has no index to use.
    await runner.query('SET enable_seqscan = off');
    for (const q of ['42', '+7 999 123-45-67', 'Alice@Example', '@search_me', 'SEARCH_ME', '777000111222']) {
      const match = searchConditions(q)!;
      const [sql, params] = ds()
        .createQueryBuilder()
        .select('u.id')
        .from(UserEntity, 'u')
        .where(match.sql, match.params)
        .orderBy('u.id', 'DESC')
        .limit(51)
        .getQueryAndParameters();
      const plan = (await runner.query(`EXPLAIN ${sql}`, params)) as { 'QUERY PLAN': string }[];
      const text = plan.map((r) => r['QUERY PLAN']).join('\n');
      // A walk of the whole table, by its heap or its primary key, filtering each row: what the indexes avoid.
      expect({ q, fullWalk: /Seq Scan|Index Scan Backward/.test(text) }).toEqual({ q, fullWalk: false });
    }
  } finally {
    await runner.query('RESET enable_seqscan');
    await runner.release();
  }
});

test('one account: the user, its latest ledger rows and generations, its keys and live sessions; unknown: 404', async () => {
  const owner = await api.account('vip', { bonusTokens: 7 });
  await api.accessToken(owner);
  await api.apiKey(owner, 'laptop');
  for (let i = 0; i < 22; i++) await insertGeneration(ds(), owner.user.id, { modelSlug: 'flux-dev', tokensSpent: 1 });
  const res = await api.request('GET', `/api/v2/admin/users/${owner.user.id}`, { token: adminToken });
  expect(res.status).toBe(200);
  expect(res.body.user).toMatchObject({ id: owner.user.id, email: owner.email, plan: 'vip', bonus_tokens: 7, blocked: false });
  expect(res.body.ledger.map((l: { kind: string; bonus_delta: number }) => [l.kind, l.bonus_delta])).toEqual(
    expect.arrayContaining([['grant', 7]]),
  );
  expect(res.body.keys).toEqual([expect.objectContaining({ name: 'laptop', masked_key: expect.any(String) })]);
  expect(res.body.keys[0].key).toBeUndefined();
  expect(res.body.sessions).toHaveLength(1);
  expect(res.body.generations).toHaveLength(20);
  const ids = res.body.generations.map((g: { id: number }) => g.id);
  expect(ids).toEqual([...ids].sort((a, b) => b - a));

  expectErrorShape(await api.request('GET', '/api/v2/admin/users/2147483647', { token: adminToken }), 404, 'not_found');
  expectErrorShape(await api.request('GET', '/api/v2/admin/users/abc', { token: adminToken }), 400, 'validation_error');
});

const auditOf = async (userId: number) =>
  (await api.request('GET', `/api/v2/admin/audit?target_type=user&target_id=${userId}`, { token: adminToken })).body.items as {
    action: string;
    actor: { label: string; door: string };
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
  }[];

const userRow = async (id: number) =>
  (
    await ds().query<Record<string, unknown>[]>(
      `SELECT u.plan_slug, u.plan_expires_at, u.plan_paid_through, u.is_blocked, u.blocked_at, u.blocked_reason,
              b.plan_tokens, b.bonus_tokens, (SELECT count(*)::int FROM ledger_entries l WHERE l.user_id = u.id) AS ledger_rows,
              (SELECT count(*)::int FROM refresh_tokens r WHERE r.user_id = u.id AND r.revoked_at IS NULL) AS live_tokens
         FROM users u JOIN balances b ON b.user_id = u.id WHERE u.id = $1`,
      [id],
    )
  )[0];

test.each([
  ['POST', '/api/v2/admin/users/1/grant', { bonus_tokens: 5, reason: 'x' }],
  ['POST', '/api/v2/admin/users/1/plan', { plan: 'pro', expires_at: null }],
  ['POST', '/api/v2/admin/users/1/block', { blocked: true, reason: 'x' }],
  ['POST', '/api/v2/admin/users/1/sessions/revoke', undefined],
])('%s %s: 403 admin_required for a non-admin and for an admin’s API key, nothing changed', async (method, path, body) => {
  const before = await userRow(1);
  expectErrorShape(await api.request(method, path, { token: userToken, body }), 403, 'admin_required');
  expectErrorShape(await api.request(method, path, { token: await api.apiKey(admin), body }), 403, 'admin_required');
  expect(await userRow(1)).toEqual(before);
  expect(await auditOf(1)).toEqual([]);
});

test('grant: a ledger row and a user.grant audit row with the balance before and after; bad bodies change nothing', async () => {
  const target = await api.account('free', { bonusTokens: 10 });
  const id = target.user.id;
  const before = await userRow(id);
  for (const body of [
    { bonus_tokens: 1_000_001, reason: 'too much' },
    { bonus_tokens: 0, reason: 'none' },
    { bonus_tokens: 1.5, reason: 'half' },
    { bonus_tokens: '5', reason: 'text' },
    { bonus_tokens: 5 },
    { bonus_tokens: 5, reason: '   ' },
    { bonus_tokens: 5, reason: 'r'.repeat(501) },
    { bonus_tokens: 5, reason: 'extra', extra: true },
  ]) {
    expectErrorShape(await api.request('POST', `/api/v2/admin/users/${id}/grant`, { token: adminToken, body }), 400, 'validation_error');
  }
  expect(await userRow(id)).toEqual(before);
  expect(await auditOf(id)).toEqual([]);
  expectErrorShape(
    await api.request('POST', '/api/v2/admin/users/2147483647/grant', { token: adminToken, body: { bonus_tokens: 5, reason: 'ghost' } }),
    404,
    'not_found',
  );

  const res = await api.request('POST', `/api/v2/admin/users/${id}/grant`, {
    token: adminToken,
    body: { bonus_tokens: 1_000_000, reason: 'support ticket 42' },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id, bonus_tokens: 1_000_010, token_balance: 1_000_010 });
  const after = await userRow(id);
  expect(after.ledger_rows).toBe((before.ledger_rows as number) + 1);
  const [ledger] = await ds().query(`SELECT kind, bonus_delta, note FROM ledger_entries WHERE user_id = $1 ORDER BY id DESC LIMIT 1`, [id]);
  expect(ledger).toEqual({ kind: 'grant', bonus_delta: 1_000_000, note: `web:${admin.user.id}: support ticket 42` });
  expect(await auditOf(id)).toEqual([
    expect.objectContaining({
      action: 'user.grant',
      actor: expect.objectContaining({ label: `web:${admin.user.id}`, door: 'web' }),
      before: { token_balance: 10, plan_tokens: 0, bonus_tokens: 10 },
      after: { token_balance: 1_000_010, plan_tokens: 0, bonus_tokens: 1_000_010, granted: 1_000_000, reason: 'support ticket 42' },
    }),
  ]);
});

test('plan: to a plan until a date or until changed, audited; an unknown plan or a past date changes nothing', async () => {
  const target = await api.account('free');
  const id = target.user.id;
  const before = await userRow(id);
  for (const body of [
    { plan: 'platinum', expires_at: null },
    { plan: 'pro', expires_at: '2020-01-01T00:00:00Z' },
    { plan: 'pro', expires_at: 'next week' },
    { plan: 'pro' },
    { plan: 'free', expires_at: '2099-01-01T00:00:00Z' },
  ]) {
    expectErrorShape(await api.request('POST', `/api/v2/admin/users/${id}/plan`, { token: adminToken, body }), 400, 'validation_error');
  }
  expect(await userRow(id)).toEqual(before);
  expect(await auditOf(id)).toEqual([]);

  const until = new Date(Date.now() + 90 * 86_400_000).toISOString();
  const res = await api.request('POST', `/api/v2/admin/users/${id}/plan`, { token: adminToken, body: { plan: 'pro', expires_at: until } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id, plan: 'pro', plan_expires_at: until });
  expect(await userRow(id)).toMatchObject({ plan_slug: 'pro', plan_paid_through: new Date(until) });
  const forever = await api.request('POST', `/api/v2/admin/users/${id}/plan`, {
    token: adminToken,
    body: { plan: 'basic', expires_at: null },
  });
  expect(forever.body).toMatchObject({ plan: 'basic', plan_expires_at: expect.any(String) });
  expect(await userRow(id)).toMatchObject({ plan_slug: 'basic', plan_paid_through: null });
  const rows = await auditOf(id);
  expect(rows.map((r) => [r.action, r.before?.plan, r.after?.plan])).toEqual([
    ['user.plan', 'pro', 'basic'],
    ['user.plan', 'free', 'pro'],
  ]);
  expect(rows[1].after).toMatchObject({ plan_expires_at: until, plan_paid_through: until });
});

test('block: the key and the session are refused on the very next request; unblock lets it sign in again', async () => {
  const target = await api.account('vip');
  const id = target.user.id;
  const token = await api.accessToken(target);
  const key = await api.apiKey(target);
  // The key is verified (and cached, the change feed being live) before the block.
  expect((await api.request('GET', '/api/v2/user/me', { token: key })).status).toBe(200);
  expect((await api.request('GET', '/api/v2/user/me', { token: key })).status).toBe(200);
  expect(api.services.apiKeys.cachedKeys).toBeGreaterThan(0);
  expect((await api.request('GET', '/api/v2/user/me', { token })).status).toBe(200);

  expectErrorShape(
    await api.request('POST', `/api/v2/admin/users/${id}/block`, { token: adminToken, body: { blocked: true } }),
    400,
    'validation_error',
  );
  expectErrorShape(
    await api.request('POST', `/api/v2/admin/users/${admin.user.id}/block`, { token: adminToken, body: { blocked: true, reason: 'me' } }),
    409,
    'cannot_block_self',
  );
  expect(await auditOf(id)).toEqual([]);
  expect(await auditOf(admin.user.id)).toEqual([]);

  const res = await api.request('POST', `/api/v2/admin/users/${id}/block`, {
    token: adminToken,
    body: { blocked: true, reason: 'chargebacks' },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id, blocked: true, blocked_reason: 'chargebacks', blocked_at: expect.any(String) });
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: key }), 403, 'account_blocked');
  expectErrorShape(await api.request('GET', '/v1/models', { token: key }), 403);
  const refused = await api.request('GET', '/api/v2/user/me', { token });
  expect([401, 403]).toContain(refused.status);
  expect((await userRow(id)).live_tokens).toBe(0);
  expectErrorShape(
    await api.request('POST', '/api/v2/auth/login', { body: { email: target.email, password: target.password } }),
    403,
    'account_blocked',
  );
  // The same state again changes nothing and records nothing.
  await api.request('POST', `/api/v2/admin/users/${id}/block`, { token: adminToken, body: { blocked: true, reason: 'chargebacks' } });

  const unblocked = await api.request('POST', `/api/v2/admin/users/${id}/block`, { token: adminToken, body: { blocked: false } });
  expect(unblocked.body).toMatchObject({ blocked: false, blocked_reason: null, blocked_at: null });
  expect((await api.request('GET', '/api/v2/user/me', { token: key })).status).toBe(200);
  expect((await api.request('GET', '/api/v2/user/me', { token: await api.accessToken(target) })).status).toBe(200);
  const rows = await auditOf(id);
  expect(rows.map((r) => r.action)).toEqual(['user.unblock', 'user.block']);
  expect(rows[1]).toMatchObject({
    before: { blocked: false, blocked_at: null, blocked_reason: null },
    after: { blocked: true, blocked_reason: 'chargebacks', sessions_revoked: 1 },
  });
});

test('sessions revoke: every session signed out at once, counted and audited; the keys still work', async () => {
  const target = await api.account('vip');
  const id = target.user.id;
  const first = await api.accessToken(target);
  const second = await api.accessToken(target);
  const key = await api.apiKey(target);
  const res = await api.request('POST', `/api/v2/admin/users/${id}/sessions/revoke`, { token: adminToken });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ revoked: 2 });
  for (const token of [first, second]) expectErrorShape(await api.request('GET', '/api/v2/user/me', { token }), 401, 'invalid_token');
  expect((await api.request('GET', '/api/v2/user/me', { token: key })).status).toBe(200);
  expect(await auditOf(id)).toEqual([expect.objectContaining({ action: 'user.sessions_revoke', after: { revoked: 2 } })]);
  expectErrorShape(await api.request('POST', '/api/v2/admin/users/2147483647/sessions/revoke', { token: adminToken }), 404, 'not_found');
});
