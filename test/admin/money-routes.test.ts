// The console's money, catalog and vendor routes through HTTP: an admin's web session only (a key, even an admin's,
// and a non-admin get 403), bad input a 400 with nothing changed and nothing logged, each change one audit row.
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { ApiHarness, expectErrorShape, insertGeneration, startApi, type TestAccount } from '../api/harness';

let api: ApiHarness;
let admin: TestAccount;
let adminToken: string;
let userToken: string;

beforeAll(async () => {
  api = await startApi();
  await api.services.payments.connectSandboxNotifications(`${api.baseUrl}/api/v2/payments/carrier/notifications`);
  admin = await api.account('vip');
  await api.db.dataSource.query('UPDATE users SET is_admin = true WHERE id = $1', [admin.user.id]);
  adminToken = await api.accessToken(admin);
  userToken = await api.accessToken(await api.account('free'));
});
afterAll(() => api.close());

const ds = () => api.db.dataSource;
const auditRows = (action: string) =>
  ds().query<{ actor_label: string; door: string; target_id: string; before: unknown; after: Record<string, unknown> }[]>(
    'SELECT actor_label, door, target_id, before, after FROM admin_audit_log WHERE action = $1 ORDER BY id',
    [action],
  );

/** A buyer's card payment of `article`, approved on the sandbox carrier's page: fulfilled when this returns. */
async function paidOrder(): Promise<{ orderId: number; buyer: TestAccount }> {
  const buyer = await api.account('free');
  const token = await api.accessToken(buyer);
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-500' } });
  expect(res.status).toBe(201);
  const approved = await fetch(`${res.body.confirmation_url}/approve`, { method: 'POST', redirect: 'manual' });
  expect(approved.status).toBe(303);
  const order = await api.request('GET', `/api/v2/payments/orders/${res.body.order_id}`, { token });
  expect(order.body.status).toBe('fulfilled');
  return { orderId: res.body.order_id as number, buyer };
}

test.each([
  ['GET', '/api/v2/admin/revenue'],
  ['GET', '/api/v2/admin/orders'],
  ['POST', '/api/v2/admin/orders/1/refund'],
  ['GET', '/api/v2/admin/catalog'],
  ['PATCH', '/api/v2/admin/catalog/flux-dev'],
  ['GET', '/api/v2/admin/vendors'],
])('%s %s: 403 admin_required for a non-admin and for an admin’s API key', async (method, path) => {
  const body = method === 'GET' ? undefined : { enabled: false };
  expectErrorShape(await api.request(method, path, { token: userToken, body }), 403, 'admin_required');
  expectErrorShape(await api.request(method, path, { token: await api.apiKey(admin), body }), 403, 'admin_required');
  expect(await auditRows('catalog.update')).toEqual([]);
  const [override] = await ds().query(`SELECT count(*)::int AS n FROM catalog_overrides WHERE slug = 'flux-dev'`);
  expect(override.n).toBe(0);
});

test('revenue: the paid order and the recorded vendor cost, per day and per model; a bad range is a 400', async () => {
  const { buyer } = await paidOrder();
  await insertGeneration(ds(), buyer.user.id, { modelSlug: 'flux-dev', tokensSpent: 30, vendorCostUsd: 0.25 });
  await insertGeneration(ds(), buyer.user.id, { modelSlug: 'sdxl', tokensSpent: 10, vendorCostUsd: 0.05 });
  const day = new Date().toISOString().slice(0, 10);
  const byDay = await api.request('GET', `/api/v2/admin/revenue?from=${day}&to=${day}&group_by=day`, { token: adminToken });
  expect(byDay.status).toBe(200);
  expect(byDay.body.data).toEqual([
    {
      key: day,
      revenue_rub: 590,
      revenue_stars: 0,
      orders: 1,
      generations: 2,
      tokens: 40,
      vendor_cost_usd: 0.3,
      margin_usd: expect.any(Number),
    },
  ]);
  expect(byDay.body.totals.margin_usd).toBeCloseTo(590 / 90 - 0.3, 6);
  const byModel = await api.request('GET', `/api/v2/admin/revenue?from=${day}&to=${day}&group_by=model`, { token: adminToken });
  expect(byModel.body.data.map((r: { key: string; revenue_rub: number; orders: null }) => [r.key, r.revenue_rub, r.orders])).toEqual([
    ['flux-dev', 442.5, null],
    ['sdxl', 147.5, null],
  ]);
  expectErrorShape(
    await api.request('GET', `/api/v2/admin/revenue?from=${day}&to=2020-01-01`, { token: adminToken }),
    400,
    'validation_error',
  );
  expectErrorShape(await api.request('GET', '/api/v2/admin/revenue?group_by=vendor', { token: adminToken }), 400, 'validation_error');
  expectErrorShape(await api.request('GET', '/api/v2/admin/revenue?from=yesterday', { token: adminToken }), 400, 'validation_error');
});

test('orders: filtered by account; a refund follows the bot’s rules once, is audited once, and a pending order is refused', async () => {
  const { orderId, buyer } = await paidOrder();
  const list = await api.request('GET', `/api/v2/admin/orders?user_id=${buyer.user.id}`, { token: adminToken });
  expect(list.body).toEqual({
    data: [expect.objectContaining({ id: orderId, user_id: buyer.user.id, status: 'fulfilled' })],
    next_cursor: null,
  });
  const before = await getBalance(ds(), buyer.user.id);

  const refund = await api.request('POST', `/api/v2/admin/orders/${orderId}/refund`, { token: adminToken });
  expect(refund.status).toBe(200);
  expect(refund.body).toMatchObject({ state: 'refunded', tokens_taken: 500, tokens_spent: 0, order: { id: orderId, status: 'refunded' } });
  const after = await getBalance(ds(), buyer.user.id);
  expect(after.bonusTokens + after.planTokens).toBe(before.bonusTokens + before.planTokens - 500);
  const l = await ledgerTotals(ds(), buyer.user.id);
  expect(l).toEqual({ plan: after.planTokens, bonus: after.bonusTokens });

  const again = await api.request('POST', `/api/v2/admin/orders/${orderId}/refund`, { token: adminToken });
  expect(again.body.state).toBe('already_refunded');
  expect(await getBalance(ds(), buyer.user.id)).toEqual(after);
  const rows = await auditRows('order.refund');
  expect(rows).toEqual([
    {
      actor_label: `web:${admin.user.id}`,
      door: 'web',
      target_id: String(orderId),
      before: { status: 'fulfilled' },
      after: expect.objectContaining({ status: 'refunded', refund: 'refunded', tokens_taken: 500 }),
    },
  ]);

  const pending = await api.request('POST', '/api/v2/payments/carrier/initiate', {
    token: await api.accessToken(buyer),
    body: { article_id: 'tokens-500' },
  });
  expectErrorShape(
    await api.request('POST', `/api/v2/admin/orders/${pending.body.order_id}/refund`, { token: adminToken }),
    409,
    'order_not_refundable',
  );
  expectErrorShape(await api.request('POST', '/api/v2/admin/orders/999999/refund', { token: adminToken }), 404, 'order_not_found');
  expect(await auditRows('order.refund')).toHaveLength(1);
  expectErrorShape(await api.request('GET', '/api/v2/admin/orders?status=lost', { token: adminToken }), 400, 'validation_error');
});

test('catalog: rates with vendor cost; a change applies and is audited; bad changes are 400 with nothing changed', async () => {
  const list = await api.request('GET', '/api/v2/admin/catalog', { token: adminToken });
  expect(list.status).toBe(200);
  const flux = list.body.data.find((m: { slug: string }) => m.slug === 'flux-dev');
  expect(flux).toMatchObject({ vendor: expect.any(String), category: 'image', enabled: true, last_check: null });
  expect(flux.rates.length).toBeGreaterThan(0);
  expect(flux.rates[0]).toEqual({
    unit: expect.any(String),
    tokens: expect.any(Number),
    vendor_usd: expect.any(Number),
    revenue_usd: expect.any(Number),
    below_cost: expect.any(Boolean),
  });

  for (const body of [
    {},
    { enabled: 'no' },
    { shutdown_at: '31.12.2027' },
    { replacement: 'gpt-6-luna' },
    { replacement: 'flux-dev' },
    { colour: 'red' },
  ]) {
    expectErrorShape(await api.request('PATCH', '/api/v2/admin/catalog/flux-dev', { token: adminToken, body }), 400, 'validation_error');
  }
  expectErrorShape(
    await api.request('PATCH', '/api/v2/admin/catalog/no-such-model', { token: adminToken, body: { enabled: false } }),
    404,
    'model_not_found',
  );
  expect(await ds().query(`SELECT slug FROM catalog_overrides WHERE slug = 'flux-dev'`)).toEqual([]);
  expect(await auditRows('catalog.update')).toEqual([]);

  const changed = await api.request('PATCH', '/api/v2/admin/catalog/flux-dev', {
    token: adminToken,
    body: { enabled: false, replacement: 'sdxl', shutdown_at: '2099-01-01' },
  });
  expect(changed.status).toBe(200);
  expect(changed.body).toMatchObject({
    slug: 'flux-dev',
    enabled: false,
    replacement: 'sdxl',
    shutdown_at: '2099-01-01',
    served_by: 'sdxl',
    retired: true,
  });
  expect(await auditRows('catalog.update')).toEqual([
    {
      actor_label: `web:${admin.user.id}`,
      door: 'web',
      target_id: 'flux-dev',
      before: expect.objectContaining({ enabled: true }),
      after: expect.objectContaining({ enabled: false, replacement: 'sdxl', shutdown_at: '2099-01-01' }),
    },
  ]);
  const back = await api.request('PATCH', '/api/v2/admin/catalog/flux-dev', { token: adminToken, body: { enabled: true } });
  expect(back.body).toMatchObject({ enabled: true, served_by: 'flux-dev' });
});

test('vendors: one row per connection with its breaker, error rate and quota pause', async () => {
  const res = await api.request('GET', '/api/v2/admin/vendors', { token: adminToken });
  expect(res.status).toBe(200);
  expect(res.body.data.length).toBeGreaterThan(0);
  for (const row of res.body.data) {
    expect(row).toEqual(expect.objectContaining({ breaker: 'closed', quota_paused_until: null, keys: expect.any(Number) }));
    expect(JSON.stringify(row)).not.toMatch(/sk-|api_key/i);
  }
});
