// The console's accounts routes through HTTP: search, one account's page, and (each audited) grant, plan, block and
// sessions. An admin's web session only; bad input is a 400 with nothing changed and nothing in the audit log.
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
