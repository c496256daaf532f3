import { z } from 'zod';
import { ArticleSchema, CheckoutSchema, OrderSchema } from '../../src/api/openapi/components';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { PaymentProviderUnavailableError } from '../../src/core/payments/errors';
import { ApiHarness, expectErrorShape, startApi } from '../api/harness';

let api: ApiHarness;
const NOTIFY_PATH = '/api/v2/payments/carrier/notifications';

beforeAll(async () => {
  api = await startApi();
  await api.services.payments.connectSandboxNotifications(`${api.baseUrl}${NOTIFY_PATH}`);
});
afterAll(() => api.close());

const signIn = async (plan: 'free' | 'vip' = 'free') => {
  const account = await api.account(plan, { bonusTokens: 0 });
  return { account, token: await api.accessToken(account) };
};

/** What the tester's browser does on the sandbox confirmation page. */
async function confirmOnPage(url: string, action: 'approve' | 'cancel'): Promise<Response> {
  const page = await fetch(url);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  expect(await page.text()).toContain(`/${action}`);
  return fetch(`${url}/${action}`, { method: 'POST', redirect: 'manual' });
}

async function ledgerMatchesBalance(userId: number): Promise<void> {
  const b = await getBalance(api.db.dataSource, userId);
  const l = await ledgerTotals(api.db.dataSource, userId);
  expect({ plan: l.plan, bonus: l.bonus }).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

/** A notification exactly as YooKassa would send it for the payment's current state at the sandbox. */
async function notificationFor(paymentId: string, event = 'payment.succeeded'): Promise<unknown> {
  const gateway = api.services.payments.carrier.provider!;
  const auth = (gateway as unknown as { auth: string }).auth;
  const res = await fetch(`${api.sandbox.mountUrl('yookassa')}/v3/payments/${paymentId}`, { headers: { Authorization: auth } });
  return { type: 'notification', event, object: await res.json() };
}

async function paymentIdOf(orderId: number): Promise<string> {
  const rows = await api.db.dataSource.query('SELECT provider_payment_id FROM payment_orders WHERE id = $1', [orderId]);
  return rows[0].provider_payment_id;
}

test('articles are public rows: packages and plans with a RUB and a Stars price', async () => {
  const res = await api.request('GET', '/api/v2/payments/articles');
  expect(res.status).toBe(200);
  for (const a of res.body.articles) expect(z.strictObject(ArticleSchema.shape).safeParse(a).success).toBe(true);
  expect(res.body.articles.map((a: { id: string }) => a.id)).toEqual([
    'tokens-100',
    'tokens-500',
    'tokens-2000',
    'tokens-10000',
    'plan-basic-month',
    'plan-pro-month',
    'plan-vip-month',
    'plan-elite-month',
  ]);
  expect(res.body.articles[1]).toEqual({
    id: 'tokens-500',
    kind: 'tokens',
    title: '500 tokens',
    tokens: 500,
    plan: null,
    period_days: null,
    price: { amount: 590, currency: 'RUB' },
    stars: 300,
  });
  expect(res.body.articles[5]).toMatchObject({
    id: 'plan-pro-month',
    kind: 'plan',
    tokens: null,
    plan: 'pro',
    period_days: 30,
    price: { amount: 990, currency: 'RUB' },
  });
});

test('the sandbox checkout page follows PUBLIC_URL, not the fake’s loopback port, and is served by the service', async () => {
  const behindProxy = await startApi({ PUBLIC_URL: 'https://pay.example.com' });
  try {
    const account = await behindProxy.account('free', { bonusTokens: 0 });
    const token = await behindProxy.accessToken(account);
    const res = await behindProxy.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-500' } });
    expect(res.status).toBe(201);
    const url = new URL(res.body.confirmation_url);
    expect(url.origin).toBe('https://pay.example.com');
    expect(url.pathname).toMatch(/^\/sandbox\/yookassa\/checkout\/[A-Za-z0-9-]+$/);
    // What the proxy forwards to this instance: the page, and its button back to the shop (PUBLIC_URL).
    const local = `${behindProxy.baseUrl}${url.pathname}`;
    const page = await fetch(local);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<form method="post" action="[A-Za-z0-9-]+\/approve">/);
    const back = await fetch(`${local}/approve`, { method: 'POST', redirect: 'manual' });
    expect([back.status, back.headers.get('location')]).toEqual([303, 'https://pay.example.com/']);
    expect((await fetch(`${local}/approve`)).status).toBe(405);
    expect((await fetch(`${behindProxy.baseUrl}/sandbox/yookassa/checkout/nope`)).status).toBe(404);
  } finally {
    await behindProxy.close();
  }
});

test('initiate, approve on the sandbox page: the notification fulfils the order once, with its ledger row', async () => {
  const { account, token } = await signIn();
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', {
    token,
    body: { article_id: 'tokens-500', return_url: 'https://shop.example/back' },
  });
  expect(res.status).toBe(201);
  expect(z.strictObject(CheckoutSchema.shape).safeParse(res.body).success).toBe(true);
  expect(res.body).toMatchObject({ status: 'pending', article_id: 'tokens-500', amount: 590, currency: 'RUB' });
  // The sandbox page is served by the service itself, at the origin the request came in through.
  expect(res.body.confirmation_url).toMatch(new RegExp(`^${api.baseUrl}/sandbox/yookassa/checkout/[A-Za-z0-9-]+$`));

  const back = await confirmOnPage(res.body.confirmation_url, 'approve');
  expect(back.status).toBe(303);
  expect(back.headers.get('location')).toBe('https://shop.example/back');

  const order = await api.request('GET', `/api/v2/payments/orders/${res.body.order_id}`, { token });
  expect(order.status).toBe(200);
  expect(z.strictObject(OrderSchema.shape).safeParse(order.body).success).toBe(true);
  expect(order.body).toMatchObject({ status: 'fulfilled', provider: 'yookassa', amount: 590, confirmation_url: null });
  expect((await getBalance(api.db.dataSource, account.user.id)).bonusTokens).toBe(500);
  const rows = await api.db.dataSource.query(
    `SELECT kind, reference, plan_delta, bonus_delta, note FROM ledger_entries WHERE user_id = $1 ORDER BY id`,
    [account.user.id],
  );
  expect(rows).toEqual([
    {
      kind: 'grant',
      reference: `order:${res.body.order_id}`,
      plan_delta: 0,
      bonus_delta: 500,
      note: expect.stringContaining(await paymentIdOf(res.body.order_id)),
    },
  ]);
  await ledgerMatchesBalance(account.user.id);

  const list = await api.request('GET', '/api/v2/payments/orders', { token });
  expect(list.body.orders.map((o: { id: number }) => o.id)).toEqual([res.body.order_id]);
});

test('20 parallel copies of the same notification credit exactly once', async () => {
  const { account, token } = await signIn();
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-2000' } });
  const paymentId = await paymentIdOf(res.body.order_id);
  // The sandbox's own notification finds us down (503): the copies below are the first to arrive and race each other.
  const down = jest
    .spyOn(api.services.payments.carrier, 'handleNotification')
    .mockRejectedValueOnce(new PaymentProviderUnavailableError('yookassa', 'test: down'));
  await fetch(`${res.body.confirmation_url}/approve`, { method: 'POST', redirect: 'manual' });
  down.mockRestore();
  expect((await getBalance(api.db.dataSource, account.user.id)).bonusTokens).toBe(0);
  const body = await notificationFor(paymentId);
  const answers = await Promise.all(Array.from({ length: 20 }, () => api.request('POST', NOTIFY_PATH, { body })));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  expect(answers.filter((a) => a.body.status === 'fulfilled')).toHaveLength(1);
  expect(answers.filter((a) => a.body.status === 'duplicate')).toHaveLength(19);
  expect((await getBalance(api.db.dataSource, account.user.id)).bonusTokens).toBe(2000);
  const grants = await api.db.dataSource.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE user_id = $1 AND kind = 'grant'`, [
    account.user.id,
  ]);
  expect(grants[0].n).toBe(1);
  await ledgerMatchesBalance(account.user.id);
});

test('a forged notification (the API still says pending) credits nothing; an unknown payment changes nothing', async () => {
  const { account, token } = await signIn();
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-10000' } });
  const paymentId = await paymentIdOf(res.body.order_id);
  const forged = {
    type: 'notification',
    event: 'payment.succeeded',
    object: {
      id: paymentId,
      status: 'succeeded',
      paid: true,
      amount: { value: '7990.00', currency: 'RUB' },
      metadata: { order_id: 'whatever' },
    },
  };
  const answer = await api.request('POST', NOTIFY_PATH, { body: forged });
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({ status: 'pending' });
  expect((await getBalance(api.db.dataSource, account.user.id)).total).toBe(0);
  expect((await api.request('GET', `/api/v2/payments/orders/${res.body.order_id}`, { token })).body.status).toBe('pending');

  const unknown = await api.request('POST', NOTIFY_PATH, {
    body: { ...forged, object: { ...forged.object, id: '2f3c6a99-000f-5000-9000-1d2a3b4c5d6e' } },
  });
  expectErrorShape(unknown, 400, 'unknown_payment');
  expectErrorShape(await api.request('POST', NOTIFY_PATH, { body: { hello: 'world' } }), 400);
  expectErrorShape(await api.request('POST', NOTIFY_PATH, { raw: 'not json', headers: { 'Content-Type': 'application/json' } }), 400);
  expect((await getBalance(api.db.dataSource, account.user.id)).total).toBe(0);
  const ledger = await api.db.dataSource.query('SELECT count(*)::int AS n FROM ledger_entries WHERE user_id = $1', [account.user.id]);
  expect(ledger[0].n).toBe(0);
});

test('cancel on the sandbox page cancels the order; a late duplicate changes nothing', async () => {
  const { account, token } = await signIn();
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-100' } });
  await confirmOnPage(res.body.confirmation_url, 'cancel');
  expect((await api.request('GET', `/api/v2/payments/orders/${res.body.order_id}`, { token })).body.status).toBe('canceled');
  const again = await api.request('POST', NOTIFY_PATH, {
    body: await notificationFor(await paymentIdOf(res.body.order_id), 'payment.canceled'),
  });
  expect(again.body).toEqual({ status: 'duplicate' });
  expect((await getBalance(api.db.dataSource, account.user.id)).total).toBe(0);
});

test('a plan bought on the web sets the plan, a new period and its allowance', async () => {
  const { account, token } = await signIn();
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'plan-pro-month' } });
  const started = Date.now();
  await confirmOnPage(res.body.confirmation_url, 'approve');
  const me = await api.request('GET', '/api/v2/user/me', { token });
  expect(me.body.plan).toBe('pro');
  const [u] = await api.db.dataSource.query(
    'SELECT plan_slug, plan_expires_at, plan_paid_through, next_refill_at, period_started_at FROM users WHERE id = $1',
    [account.user.id],
  );
  const days = (new Date(u.plan_paid_through).getTime() - new Date(u.period_started_at).getTime()) / 86_400_000;
  expect(days).toBeCloseTo(30, 5);
  expect(new Date(u.period_started_at).getTime()).toBeGreaterThanOrEqual(started - 1000);
  expect(new Date(u.plan_expires_at).getTime()).toBe(new Date(u.plan_paid_through).getTime());
  expect(new Date(u.next_refill_at).getTime()).toBe(new Date(u.plan_paid_through).getTime());
  expect((await getBalance(api.db.dataSource, account.user.id)).planTokens).toBe(3000);
  await ledgerMatchesBalance(account.user.id);
});

test('quick-checkout pays with the method saved on a first payment; without one it behaves like initiate', async () => {
  const { account, token } = await signIn();
  const first = await api.request('POST', '/api/v2/payments/carrier/quick-checkout', { token, body: { article_id: 'tokens-100' } });
  expect(first.status).toBe(201);
  expect(first.body.confirmation_url).toEqual(expect.any(String));
  await confirmOnPage(first.body.confirmation_url, 'approve');

  const saving = await api.request('POST', '/api/v2/payments/carrier/initiate', {
    token,
    body: { article_id: 'tokens-100', save_payment_method: true },
  });
  await confirmOnPage(saving.body.confirmation_url, 'approve');
  const quick = await api.request('POST', '/api/v2/payments/carrier/quick-checkout', { token, body: { article_id: 'tokens-500' } });
  expect(quick.status).toBe(201);
  expect(quick.body).toMatchObject({ status: 'fulfilled', article_id: 'tokens-500', confirmation_url: null });
  expect((await getBalance(api.db.dataSource, account.user.id)).bonusTokens).toBe(700);
  await ledgerMatchesBalance(account.user.id);
});

test("bad input: unknown article 400, no sign-in 401, another user's order 404, bad bodies 400", async () => {
  const { account, token } = await signIn();
  for (const flow of ['initiate', 'quick-checkout']) {
    for (const article_id of ['tokens-999', 'plan-free-month', 'TOKENS-500', 'plan_vip']) {
      const res = await api.request('POST', `/api/v2/payments/carrier/${flow}`, { token, body: { article_id } });
      expectErrorShape(res, 400, 'unknown_article');
      expect(res.body.field).toBe('article_id');
    }
    expectErrorShape(await api.request('POST', `/api/v2/payments/carrier/${flow}`, { token, body: {} }), 400, 'validation_error');
    expectErrorShape(await api.request('POST', `/api/v2/payments/carrier/${flow}`, { body: { article_id: 'tokens-100' } }), 401);
  }
  expectErrorShape(
    await api.request('POST', '/api/v2/payments/carrier/initiate', {
      token,
      body: { article_id: 'tokens-100', return_url: 'javascript:alert(1)' },
    }),
    400,
  );
  const mine = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-100' } });
  const other = await signIn();
  expectErrorShape(
    await api.request('GET', `/api/v2/payments/orders/${mine.body.order_id}`, { token: other.token }),
    404,
    'order_not_found',
  );
  expectErrorShape(await api.request('GET', '/api/v2/payments/orders/999999', { token }), 404);
  expectErrorShape(await api.request('GET', '/api/v2/payments/orders/abc', { token }), 400);
  expect((await api.request('GET', '/api/v2/payments/orders', { token: other.token })).body).toEqual({ orders: [] });
  expect((await getBalance(api.db.dataSource, account.user.id)).total).toBe(0);
});

test('expiry re-reads stale carrier orders: paid meanwhile is fulfilled, still pending is expired', async () => {
  const { account, token } = await signIn();
  const paidLate = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-100' } });
  const abandoned = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-500' } });
  const lost = jest
    .spyOn(api.services.payments.carrier, 'handleNotification')
    .mockRejectedValue(new PaymentProviderUnavailableError('yookassa', 'test: notifications lost'));
  await fetch(`${paidLate.body.confirmation_url}/approve`, { method: 'POST', redirect: 'manual' });
  lost.mockRestore();
  await api.db.dataSource.query(`UPDATE payment_orders SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [account.user.id]);
  expect(await api.services.payments.expireStale()).toBe(1);
  const orders = (await api.request('GET', '/api/v2/payments/orders', { token })).body.orders;
  expect(Object.fromEntries(orders.map((o: { id: number; status: string }) => [o.id, o.status]))).toEqual({
    [paidLate.body.order_id]: 'fulfilled',
    [abandoned.body.order_id]: 'expired',
  });
  expect((await getBalance(api.db.dataSource, account.user.id)).bonusTokens).toBe(100);
  await ledgerMatchesBalance(account.user.id);
});
