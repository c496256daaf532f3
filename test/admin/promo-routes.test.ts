// The console's promo-code routes through HTTP: an admin makes codes (audited `promo.create`) that a user then
// redeems; a bad body is a 400 with no code made and nothing in the audit log; a non-admin gets 403.
import { ApiHarness, expectErrorShape, startApi, type TestAccount } from '../api/harness';

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

const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString();
const create = (body: unknown, token = adminToken) => api.request('POST', '/api/v2/admin/promo-codes', { token, body });
const codeCount = async () => Number((await api.db.dataSource.query('SELECT count(*)::int AS n FROM promo_codes'))[0].n);
const promoAudits = async () =>
  (await api.db.dataSource.query(`SELECT action, target_id FROM admin_audit_log WHERE action = 'promo.create'`)) as unknown[];

test.each([
  ['GET', '/api/v2/admin/promo-codes'],
  ['POST', '/api/v2/admin/promo-codes'],
])('%s %s: 403 admin_required for a non-admin and for an admin’s API key', async (method, path) => {
  const body = method === 'POST' ? { bonus_tokens: 10, max_uses: 1, expires_at: null } : undefined;
  expectErrorShape(await api.request(method, path, { token: userToken, body }), 403, 'admin_required');
  expectErrorShape(await api.request(method, path, { token: await api.apiKey(admin), body }), 403, 'admin_required');
});

test('a tokens code and a plan code are made, listed newest first, audited, and redeemable', async () => {
  const tokens = await create({ code: 'spring-2027', bonus_tokens: 500, max_uses: 3, expires_at: inAWeek() });
  expect(tokens.status).toBe(201);
  expect(tokens.body).toMatchObject({ code: 'SPRING-2027', bonus_tokens: 500, plan: null, days: null, max_uses: 3, uses: 0 });
  const plan = await create({ plan: 'pro', days: 14, max_uses: 1, expires_at: null });
  expect(plan.status).toBe(201);
  expect(plan.body).toMatchObject({ bonus_tokens: null, plan: 'pro', days: 14, expires_at: null });
  expect(plan.body.code).toMatch(/^[A-Z0-9_-]{3,40}$/);

  const list = await api.request('GET', '/api/v2/admin/promo-codes?limit=1', { token: adminToken });
  expect(list.status).toBe(200);
  expect(list.body.items.map((p: { id: number }) => p.id)).toEqual([plan.body.id]);
  const next = await api.request('GET', `/api/v2/admin/promo-codes?limit=1&cursor=${list.body.next_cursor}`, { token: adminToken });
  expect(next.body.items.map((p: { id: number }) => p.id)).toEqual([tokens.body.id]);

  const redeemed = await api.request('POST', '/api/v2/user/redeem', { token: userToken, body: { code: 'spring-2027' } });
  expect(redeemed.status).toBe(200);
  const after = await api.request('GET', '/api/v2/admin/promo-codes', { token: adminToken });
  expect(after.body.items.find((p: { id: number }) => p.id === tokens.body.id).uses).toBe(1);

  const audit = await api.request('GET', '/api/v2/admin/audit?action=promo.create', { token: adminToken });
  expect(audit.status).toBe(200);
  const targets = (audit.body.items as { action: string; target: { id: string } }[])
    .filter((a) => a.action === 'promo.create')
    .map((a) => String(a.target.id));
  expect(targets).toEqual(expect.arrayContaining([String(tokens.body.id), String(plan.body.id)]));
});

test.each([
  ['both rewards', { bonus_tokens: 10, plan: 'pro', days: 3, max_uses: 1, expires_at: null }],
  ['neither reward', { max_uses: 1, expires_at: null }],
  ['a plan without days', { plan: 'pro', max_uses: 1, expires_at: null }],
  ['an unknown plan', { plan: 'platinum', days: 3, max_uses: 1, expires_at: null }],
  ['the free plan', { plan: 'free', days: 3, max_uses: 1, expires_at: null }],
  ['tokens over the bound', { bonus_tokens: 1_000_001, max_uses: 1, expires_at: null }],
  ['no uses', { bonus_tokens: 10, max_uses: 0, expires_at: null }],
  ['a past expiry', { bonus_tokens: 10, max_uses: 1, expires_at: '2020-01-01T00:00:00Z' }],
  ['a malformed code', { code: 'no spaces!', bonus_tokens: 10, max_uses: 1, expires_at: null }],
])('%s: 400 validation_error, no code made, nothing audited', async (_label, body) => {
  const [codes, audits] = [await codeCount(), (await promoAudits()).length];
  expectErrorShape(await create(body), 400, 'validation_error');
  expect(await codeCount()).toBe(codes);
  expect((await promoAudits()).length).toBe(audits);
});

test('a taken code: 409 promo_code_taken, nothing audited', async () => {
  expect((await create({ code: 'TAKEN1', bonus_tokens: 10, max_uses: 1, expires_at: null })).status).toBe(201);
  const audits = (await promoAudits()).length;
  expectErrorShape(await create({ code: 'taken1', bonus_tokens: 10, max_uses: 1, expires_at: null }), 409, 'promo_code_taken');
  expect((await promoAudits()).length).toBe(audits);
});
