import { createUser } from '../../src/core/accounts/users';
import { refillDuePlans } from '../../src/core/billing/refill';
import { getBalance, ledgerTotals, reserve, settle } from '../../src/core/billing/ledger';
import { PaymentProviderUnavailableError } from '../../src/core/payments/errors';
import type { OrderRecord } from '../../src/core/payments/orders';
import type { RefundGateway } from '../../src/core/payments/ports';
import { UserEntity } from '../../src/db/entities';
import { Engine, startEngine } from '../support/engine';
import { waitUntil } from '../support/wait';

let engine: Engine;
let nextTelegramId = 7_100_000;

beforeAll(async () => {
  engine = await startEngine();
});
afterAll(() => engine.close());

const ds = () => engine.db.dataSource;
const payments = () => engine.services.payments;

/** A Telegram user with an empty balance (no Starter grant), so every token below comes from a purchase. */
async function buyer(): Promise<{ id: number; telegramId: number }> {
  const telegramId = nextTelegramId++;
  const user = await createUser(ds(), engine.services.plans, { name: `Buyer ${telegramId}`, telegramId, bonusTokens: 0, planTokens: 0 });
  return { id: user.id, telegramId };
}

async function buyWithStars(b: { id: number; telegramId: number }, articleId: string, chargeId: string, subscription?: { first: boolean }) {
  const { order, invoice } = await payments().stars.startPurchase(b.id, articleId);
  expect(
    await payments().stars.preCheckout({
      telegramUserId: b.telegramId,
      payload: invoice.payload,
      currency: 'XTR',
      totalAmount: invoice.amount,
    }),
  ).toEqual({ ok: true });
  const result = await payments().stars.paymentReceived({
    telegramUserId: b.telegramId,
    payload: invoice.payload,
    currency: 'XTR',
    totalAmount: invoice.amount,
    chargeId,
    isRecurring: subscription ? true : undefined,
    isFirstRecurring: subscription?.first ? true : undefined,
  });
  return { order, invoice, result };
}

async function expectLedgerMatchesBalance(userId: number): Promise<void> {
  const b = await getBalance(ds(), userId);
  expect(await ledgerTotals(ds(), userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

const userRow = (id: number) => ds().getRepository(UserEntity).findOneByOrFail({ id });

test('20 parallel copies of the same successful_payment credit exactly once', async () => {
  const b = await buyer();
  const { invoice } = await payments().stars.startPurchase(b.id, 'tokens-500');
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      payments().stars.paymentReceived({
        telegramUserId: b.telegramId,
        payload: invoice.payload,
        currency: 'XTR',
        totalAmount: 300,
        chargeId: 'par-charge-1',
      }),
    ),
  );
  expect(results.filter((r) => r.outcome === 'fulfilled')).toHaveLength(1);
  expect(results.filter((r) => r.outcome === 'duplicate')).toHaveLength(19);
  expect(await getBalance(ds(), b.id)).toMatchObject({ bonusTokens: 500, total: 500 });
  const rows = await ds().query(`SELECT kind, bonus_delta FROM ledger_entries WHERE user_id = $1`, [b.id]);
  expect(rows).toEqual([{ kind: 'grant', bonus_delta: 500 }]);
  await expectLedgerMatchesBalance(b.id);
});

test('20 parallel copies of the same renewal extend the plan once; the same charge on another order changes nothing', async () => {
  const b = await buyer();
  const { invoice } = await buyWithStars(b, 'plan-basic-month', 'sub-first-1', { first: true });
  const firstEnd = new Date((await userRow(b.id)).planExpiresAt!).getTime();
  const renewal = () =>
    payments().stars.paymentReceived({
      telegramUserId: b.telegramId,
      payload: invoice.payload,
      currency: 'XTR',
      totalAmount: 250,
      chargeId: 'sub-renew-1',
      isRecurring: true,
    });
  const results = await Promise.all(Array.from({ length: 20 }, renewal));
  expect(results.filter((r) => r.outcome === 'fulfilled')).toHaveLength(1);
  expect(new Date((await userRow(b.id)).planExpiresAt!).getTime() - firstEnd).toBe(30 * 86_400_000);
  const fulfilled = await ds().query(`SELECT count(*)::int AS n FROM payment_orders WHERE user_id = $1 AND status = 'fulfilled'`, [b.id]);
  expect(fulfilled[0].n).toBe(2);

  // A replayed first charge id on a fresh order of the same user: the unique charge id refuses it.
  const other = await payments().stars.startPurchase(b.id, 'tokens-100');
  const replay = await payments().stars.paymentReceived({
    telegramUserId: b.telegramId,
    payload: other.invoice.payload,
    currency: 'XTR',
    totalAmount: 75,
    chargeId: 'sub-first-1',
  });
  expect(replay.outcome).toBe('duplicate');
  expect((await getBalance(ds(), b.id)).bonusTokens).toBe(0);
  await expectLedgerMatchesBalance(b.id);
});

test('a plan purchase sets the plan, its period and allowance; without renewal it lapses to Starter and bonus tokens stay', async () => {
  const b = await buyer();
  await buyWithStars(b, 'tokens-100', 'lapse-bonus');
  await buyWithStars(b, 'plan-vip-month', 'lapse-plan', { first: true });
  let user = await userRow(b.id);
  expect(user.planSlug).toBe('vip');
  expect(await getBalance(ds(), b.id)).toMatchObject({ planTokens: 8000, bonusTokens: 100 });
  expect(new Date(user.planPaidThrough!).getTime()).toBe(new Date(user.nextRefillAt).getTime());

  // The period ends with no renewal payment: the next refill run moves the account to Starter.
  await ds().query(
    `UPDATE users SET next_refill_at = now() - interval '1 minute', plan_paid_through = now() - interval '1 minute', plan_expires_at = now() - interval '1 minute' WHERE id = $1`,
    [b.id],
  );
  await refillDuePlans(ds());
  user = await userRow(b.id);
  expect(user.planSlug).toBe('free');
  expect(user.planExpiresAt).toBeNull();
  expect(user.planPaidThrough).toBeNull();
  expect(await getBalance(ds(), b.id)).toMatchObject({ planTokens: 0, bonusTokens: 100 });
  await expectLedgerMatchesBalance(b.id);
});

test('a renewed plan refills at the period end and stays; an operator-set plan never lapses', async () => {
  const b = await buyer();
  const { invoice } = await buyWithStars(b, 'plan-pro-month', 'renew-first', { first: true });
  await payments().stars.paymentReceived({
    telegramUserId: b.telegramId,
    payload: invoice.payload,
    currency: 'XTR',
    totalAmount: 500,
    chargeId: 'renew-second',
    isRecurring: true,
  });
  // Spend some plan tokens, then reach the first period end: still paid (renewed), so a normal refill.
  await reserve(ds(), b.id, 'renew-spend', 700);
  await settle(ds(), 'renew-spend', 700);
  await ds().query(`UPDATE users SET next_refill_at = now() - interval '1 minute' WHERE id = $1`, [b.id]);
  await refillDuePlans(ds());
  const user = await userRow(b.id);
  expect(user.planSlug).toBe('pro');
  expect(new Date(user.planExpiresAt!).getTime()).toBe(new Date(user.planPaidThrough!).getTime());
  expect((await getBalance(ds(), b.id)).planTokens).toBe(3000);
  await expectLedgerMatchesBalance(b.id);

  const operator = await engine.actor('basic');
  await ds().query(`UPDATE users SET next_refill_at = now() - interval '1 minute' WHERE id = $1`, [operator.user.id]);
  await refillDuePlans(ds());
  expect((await userRow(operator.user.id)).planSlug).toBe('basic');
});

test('a refund after partial spending takes back only what is left, states what was spent; ledger sum == balance', async () => {
  const b = await buyer();
  const { result } = await buyWithStars(b, 'tokens-500', 'refund-partial');
  // Spend 320 through the real billing path: reserve then settle.
  await reserve(ds(), b.id, 'gen:refund-test', 400);
  await settle(ds(), 'gen:refund-test', 320);
  expect((await getBalance(ds(), b.id)).bonusTokens).toBe(180);

  const gateway: RefundGateway = { refund: async () => ({ state: 'succeeded' as const }) };
  payments().refunds.useGateway('stars', gateway);
  const refunded = await payments().refunds.request('refund-partial');
  expect(refunded.state).toBe('refunded');
  expect(refunded.reversal).toMatchObject({ applied: true, tokensTaken: 180, tokensSpent: 320 });
  expect(await getBalance(ds(), b.id)).toMatchObject({ bonusTokens: 0, total: 0 });
  const order = await payments().order(b.id, result.order!.id);
  expect(order).toMatchObject({ status: 'refunded', refund: { tokens_taken: 180, tokens_spent: 320 } });
  const rows = await ds().query(
    `SELECT kind, reference, bonus_delta FROM ledger_entries WHERE user_id = $1 AND kind IN ('grant', 'refund') ORDER BY id`,
    [b.id],
  );
  expect(rows).toEqual([
    { kind: 'grant', reference: `order:${order.id}`, bonus_delta: 500 },
    { kind: 'refund', reference: `order:${order.id}`, bonus_delta: -180 },
  ]);
  await expectLedgerMatchesBalance(b.id);

  // Twice: nothing more. An unknown charge: refused.
  expect((await payments().refunds.request('refund-partial')).state).toBe('already_refunded');
  await expect(payments().refunds.request('no-such-charge')).rejects.toMatchObject({ code: 'unknown_charge' });
  await expectLedgerMatchesBalance(b.id);
});

test('refunding a plan ends it now and takes back the unspent allowance', async () => {
  const b = await buyer();
  await buyWithStars(b, 'plan-basic-month', 'plan-refund', { first: true });
  await reserve(ds(), b.id, 'gen:plan-refund', 250);
  await settle(ds(), 'gen:plan-refund', 250);
  payments().refunds.useGateway('stars', { refund: async () => ({ state: 'succeeded' as const }) });
  const r = await payments().refunds.request('plan-refund');
  expect(r.reversal).toMatchObject({ tokensTaken: 750, tokensSpent: 250 });
  expect((await userRow(b.id)).planSlug).toBe('free');
  expect((await getBalance(ds(), b.id)).planTokens).toBe(0);
  await expectLedgerMatchesBalance(b.id);
});

test('a refund request is durable: the provider failing (429/5xx) leaves it queued, the job retries it to the end', async () => {
  const b = await buyer();
  await buyWithStars(b, 'tokens-100', 'durable-refund');
  let calls = 0;
  const flaky: RefundGateway = {
    refund: async (_order: OrderRecord) => {
      calls += 1;
      if (calls <= 2) throw new PaymentProviderUnavailableError('stars', 'Too Many Requests: retry after 1');
      return { state: 'succeeded' as const };
    },
  };
  payments().refunds.useGateway('stars', flaky);
  await engine.startWorkers();
  const first = await payments().refunds.request('durable-refund');
  expect(first.state).toBe('queued');
  expect((await getBalance(ds(), b.id)).bonusTokens).toBe(100);
  await waitUntil(
    async () =>
      (await ds().query(`SELECT status FROM payment_orders WHERE provider_charge_id = 'durable-refund'`))[0].status === 'refunded',
    60_000,
    'the queued refund went through',
  );
  expect(calls).toBe(3);
  expect((await getBalance(ds(), b.id)).bonusTokens).toBe(0);
  await expectLedgerMatchesBalance(b.id);
}, 90_000);

test('stale pending orders expire; an expired order is refused at pre-checkout', async () => {
  const b = await buyer();
  const { order, invoice } = await payments().stars.startPurchase(b.id, 'tokens-2000');
  const fresh = await payments().stars.startPurchase(b.id, 'tokens-100');
  await ds().query(`UPDATE payment_orders SET expires_at = now() - interval '1 second' WHERE id = $1`, [order.id]);
  expect(await payments().expireStale()).toBe(1);
  expect((await payments().order(b.id, order.id)).status).toBe('expired');
  expect((await payments().order(b.id, fresh.order.id)).status).toBe('pending');
  expect(
    await payments().stars.preCheckout({ telegramUserId: b.telegramId, payload: invoice.payload, currency: 'XTR', totalAmount: 1000 }),
  ).toEqual({
    ok: false,
    reason: 'not_pending',
  });
  expect(await payments().expireStale()).toBe(0);
});
