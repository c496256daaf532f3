// Issue 39, referrals through the HTTP door: each account has a code and a link (GET /api/v2/user/referral), a
// sign-up with the code joins the inviter once, and the invitee's FIRST payment (here the web carrier) credits the
// bonuses in the fulfilment's transaction, once; a second payment credits nothing. Without a bot the link is the
// dashboard's sign-up page. The core's rules (never oneself, never twice, single-shot under a race) are checked
// below it.
import { z } from 'zod';
import { ReferralSchema } from '../../src/api/v2/referral-routes';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { fulfil } from '../../src/core/payments/fulfilment';
import { createOrder } from '../../src/core/payments/orders';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { ApiHarness, expectErrorShape, startApi } from './harness';

const INVITER_BONUS = 70;
const INVITEE_BONUS = 30;
let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ REFERRAL_BONUS_INVITER: String(INVITER_BONUS), REFERRAL_BONUS_INVITEE: String(INVITEE_BONUS) });
  await api.services.payments.connectSandboxNotifications(`${api.baseUrl}/api/v2/payments/carrier/notifications`);
});
afterAll(() => api.close());

async function referralOf(token: string) {
  const res = await api.request('GET', '/api/v2/user/referral', { token });
  expect(res.status).toBe(200);
  expect(z.strictObject(ReferralSchema.shape).safeParse(res.body).success).toBe(true);
  return res.body as z.infer<typeof ReferralSchema>;
}

async function register(referralCode?: string): Promise<{ token: string; userId: number }> {
  const email = `ref-${Math.random().toString(36).slice(2)}@example.com`;
  const res = await api.request('POST', '/api/v2/auth/register', {
    body: { email, password: 'correct horse battery', ...(referralCode !== undefined ? { referral_code: referralCode } : {}) },
  });
  expect(res.status).toBe(201);
  return { token: res.body.access_token, userId: res.body.user.id };
}

/** A web payment of `article`, approved on the sandbox carrier's page: fulfilled when this returns. */
async function payOnTheWeb(token: string, article: string): Promise<number> {
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: article } });
  expect(res.status).toBe(201);
  const approved = await fetch(`${res.body.confirmation_url}/approve`, { method: 'POST', redirect: 'manual' });
  expect(approved.status).toBe(303);
  const order = await api.request('GET', `/api/v2/payments/orders/${res.body.order_id}`, { token });
  expect(order.body.status).toBe('fulfilled');
  return res.body.order_id as number;
}

const referralRows = (userId: number) =>
  api.db.dataSource.query<{ reference: string; bonus_delta: number }[]>(
    `SELECT reference, bonus_delta FROM ledger_entries WHERE user_id = $1 AND reference LIKE 'referral:%' ORDER BY id`,
    [userId],
  );

async function ledgerMatchesBalance(userId: number): Promise<void> {
  const b = await getBalance(api.db.dataSource, userId);
  const l = await ledgerTotals(api.db.dataSource, userId);
  expect({ plan: l.plan, bonus: l.bonus }).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

test('each account has one code; without a bot its link is the dashboard’s sign-up page', async () => {
  const inviter = await register();
  const first = await referralOf(inviter.token);
  expect(first).toEqual({ code: expect.stringMatching(/^[a-z2-9]{8}$/), link: expect.any(String), invited: 0, earned_tokens: 0 });
  expect(first.link).toBe(`${api.baseUrl}/register?ref=${first.code}`);
  expect(await referralOf(inviter.token)).toEqual(first);
  const other = await referralOf((await register()).token);
  expect(other.code).not.toBe(first.code);
});

test('a sign-up with the code joins once; the first web payment credits both bonuses once, the second nothing', async () => {
  const inviter = await register();
  const { code } = await referralOf(inviter.token);
  // Codes are matched whatever their case (a link typed by hand).
  const invitee = await register(code.toUpperCase());
  expect(await referralOf(inviter.token)).toMatchObject({ invited: 1, earned_tokens: 0 });
  const starting = await getBalance(api.db.dataSource, invitee.userId);

  const firstOrder = await payOnTheWeb(invitee.token, 'tokens-100');
  expect(await referralOf(inviter.token)).toMatchObject({ invited: 1, earned_tokens: INVITER_BONUS });
  expect((await getBalance(api.db.dataSource, invitee.userId)).bonusTokens).toBe(starting.bonusTokens + 100 + INVITEE_BONUS);
  expect(await referralRows(invitee.userId)).toEqual([{ reference: `referral:${invitee.userId}`, bonus_delta: INVITEE_BONUS }]);
  expect(await referralRows(inviter.userId)).toEqual([{ reference: `referral:${invitee.userId}`, bonus_delta: INVITER_BONUS }]);
  const [referral] = await api.db.dataSource.query('SELECT reward_order_id, rewarded_at FROM referrals WHERE invitee_id = $1', [
    invitee.userId,
  ]);
  expect(referral).toEqual({ reward_order_id: firstOrder, rewarded_at: expect.any(Date) });

  await payOnTheWeb(invitee.token, 'tokens-100');
  expect(await referralOf(inviter.token)).toMatchObject({ invited: 1, earned_tokens: INVITER_BONUS });
  expect((await getBalance(api.db.dataSource, invitee.userId)).bonusTokens).toBe(starting.bonusTokens + 200 + INVITEE_BONUS);
  expect(await referralRows(invitee.userId)).toHaveLength(1);
  expect(await referralRows(inviter.userId)).toHaveLength(1);
  await ledgerMatchesBalance(invitee.userId);
  await ledgerMatchesBalance(inviter.userId);
});

test('an unknown code never stands in the way of a sign-up', async () => {
  const joined = await register('nosuchcode');
  const [row] = await api.db.dataSource.query('SELECT count(*)::int AS n FROM referrals WHERE invitee_id = $1', [joined.userId]);
  expect(row.n).toBe(0);
  expectErrorShape(
    await api.request('POST', '/api/v2/auth/register', {
      body: { email: 'long-code@example.com', password: 'correct horse battery', referral_code: 'x'.repeat(61) },
    }),
    400,
    'validation_error',
  );
});

test('never to oneself, never twice, and links tie new accounts only', async () => {
  const { referrals } = api.services;
  const a = await register();
  const b = await register();
  const codeA = (await referralOf(a.token)).code;
  const codeB = (await referralOf(b.token)).code;
  expect(await referrals.join(a.userId, codeA, { newAccount: true })).toMatchObject({ outcome: 'own_code' });
  expect(await referrals.join(a.userId, 'unknown1', { newAccount: true })).toEqual({ outcome: 'unknown_code' });
  expect(await referrals.join(a.userId, codeB, { newAccount: false })).toMatchObject({ outcome: 'not_new' });
  expect(await referrals.join(a.userId, codeB, { newAccount: true })).toMatchObject({ outcome: 'joined' });
  const c = await register();
  const codeC = (await referralOf(c.token)).code;
  expect(await referrals.join(a.userId, codeC, { newAccount: true })).toMatchObject({ outcome: 'already_joined' });
  expect(await referralOf(b.token)).toMatchObject({ invited: 1 });
  expect(await referralOf(c.token)).toMatchObject({ invited: 0 });
  expect(await referralOf(a.token)).toMatchObject({ invited: 0 });
});

test('two first payments racing credit the bonuses once; a bonus of 0 is off', async () => {
  const ds = api.db.dataSource;
  const plans = new PlanDirectory(ds);
  const inviter = await register();
  const invitee = await register((await referralOf(inviter.token)).code);
  const article = await api.services.payments.catalog.require('tokens-100');
  const orders = await Promise.all(
    [1, 2, 3].map(() => createOrder(ds, { userId: invitee.userId, article, provider: 'yookassa', isSubscription: false })),
  );
  const results = await Promise.all(
    orders.map((o, i) => fulfil(ds, plans, o.id, `race-${invitee.userId}-${i}`, { inviterBonus: 0, inviteeBonus: 11 })),
  );
  expect(results.every((r) => r.applied)).toBe(true);
  expect(results.filter((r) => r.referral)).toEqual([
    expect.objectContaining({ referral: { inviteeId: invitee.userId, inviterId: inviter.userId, inviterBonus: 0, inviteeBonus: 11 } }),
  ]);
  expect(await referralRows(invitee.userId)).toEqual([{ reference: `referral:${invitee.userId}`, bonus_delta: 11 }]);
  expect(await referralRows(inviter.userId)).toEqual([]);
  await ledgerMatchesBalance(invitee.userId);
});

test('a restricted API key may not read the account’s referral', async () => {
  const account = await api.account('vip');
  const { key } = await api.services.createApiKey(account.user.id, 'limited', { token_budget: 10, budget_period: 'day' });
  expectErrorShape(await api.request('GET', '/api/v2/user/referral', { token: key }), 403, 'key_restricted');
});
