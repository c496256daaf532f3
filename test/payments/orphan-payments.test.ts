import type { OrderRecord } from '../../src/core/payments/orders';
import type { OrphanCharge, OrphanPaymentEvent, RefundGateway, RefundOutcome } from '../../src/core/payments/ports';
import { ApiHarness, startApi } from '../api/harness';
import { eventually } from '../support/wait';

// Issue 34, finding 6: an account deleted with a checkout open, then the checkout paid: YooKassa captured the
// money, the service logged a warning, answered 200, credited nothing, refunded nothing and told no admin. Now
// deletion cancels the account's checkouts and stops its subscriptions, and a payment that still succeeds for no
// open order is refunded, with the admins told.

let api: ApiHarness;
const NOTIFY_PATH = '/api/v2/payments/carrier/notifications';
const orphans: OrphanPaymentEvent[] = [];

beforeAll(async () => {
  api = await startApi();
  await api.services.payments.connectSandboxNotifications(`${api.baseUrl}${NOTIFY_PATH}`);
  api.services.payments.hub.add({ orphanPayment: (e) => void orphans.push(e) });
});
afterAll(() => api.close());

/** The payment at the sandbox YooKassa, as its API reports it. */
async function sandboxPayment(paymentId: string): Promise<{ status: string; refunded_amount?: { value: string } }> {
  const auth = (api.services.payments.carrier.provider as unknown as { auth: string }).auth;
  const res = await fetch(`${api.sandbox.mountUrl('yookassa')}/v3/payments/${paymentId}`, { headers: { Authorization: auth } });
  return (await res.json()) as { status: string; refunded_amount?: { value: string } };
}

async function checkoutThenDelete(): Promise<{ paymentId: string; confirmationUrl: string; userId: number }> {
  const account = await api.account('free', { bonusTokens: 0 });
  const token = await api.accessToken(account);
  const checkout = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-500' } });
  expect(checkout.status).toBe(201);
  const [{ provider_payment_id: paymentId }] = await api.db.dataSource.query(
    'SELECT provider_payment_id FROM payment_orders WHERE id = $1',
    [checkout.body.order_id],
  );
  const deleted = await api.request('POST', '/api/v2/user/delete', { token, body: { password: account.password } });
  expect(deleted.status).toBe(204);
  return { paymentId, confirmationUrl: checkout.body.confirmation_url, userId: account.user.id };
}

test('a checkout paid after its account was deleted is refunded, and the admins are told once', async () => {
  const { paymentId, confirmationUrl } = await checkoutThenDelete();
  // The buyer still had the payment page open, and pays.
  const paid = await fetch(`${confirmationUrl}/approve`, { method: 'POST', redirect: 'manual' });
  expect(paid.status).toBe(303);

  const refunded = await eventually(
    async () => {
      const p = await sandboxPayment(paymentId);
      return p.refunded_amount?.value === '590.00' ? p : undefined;
    },
    10_000,
    'the payment refunded at YooKassa',
  );
  expect(refunded.status).toBe('succeeded');
  const told = orphans.filter((e) => e.chargeId === paymentId);
  expect(told).toEqual([
    expect.objectContaining({ provider: 'yookassa', amount: 590, currency: 'RUB', reason: 'unknown_order', outcome: 'refunded' }),
  ]);

  // YooKassa repeating the notification refunds nothing more.
  const again = await api.request('POST', NOTIFY_PATH, {
    body: { type: 'notification', event: 'payment.succeeded', object: { id: paymentId, status: 'succeeded' } },
  });
  expect(again.body).toEqual({ status: 'refunded' });
  expect((await sandboxPayment(paymentId)).refunded_amount?.value).toBe('590.00');
  expect(orphans.filter((e) => e.chargeId === paymentId)).toHaveLength(1);
  const [row] = await api.db.dataSource.query('SELECT amount_minor, currency, reason, outcome FROM orphan_payments WHERE charge_id = $1', [
    paymentId,
  ]);
  expect(row).toEqual({ amount_minor: 59000, currency: 'RUB', reason: 'unknown_order', outcome: 'refunded' });
});

test('a payment that succeeds for an order already canceled is refunded too (the account still exists)', async () => {
  const account = await api.account('free', { bonusTokens: 0 });
  const token = await api.accessToken(account);
  const checkout = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-100' } });
  await api.db.dataSource.query(`UPDATE payment_orders SET status = 'canceled' WHERE id = $1`, [checkout.body.order_id]);
  const [{ provider_payment_id: paymentId }] = await api.db.dataSource.query(
    'SELECT provider_payment_id FROM payment_orders WHERE id = $1',
    [checkout.body.order_id],
  );
  await fetch(`${checkout.body.confirmation_url}/approve`, { method: 'POST', redirect: 'manual' });
  await eventually(async () => ((await sandboxPayment(paymentId)).refunded_amount ? true : undefined), 10_000, 'refunded');
  expect(orphans.find((e) => e.chargeId === paymentId)).toMatchObject({ reason: 'order_canceled', outcome: 'refunded' });
  const [order] = await api.db.dataSource.query('SELECT status FROM payment_orders WHERE id = $1', [checkout.body.order_id]);
  expect(order.status).toBe('canceled');
  expect((await api.request('GET', '/api/v2/user/balance', { token })).body.bonus_tokens).toBe(0);
});

/** The Telegram side of Stars (refundStarPayment, editUserStarSubscription), recorded. */
class RecordingStars implements RefundGateway {
  readonly refundedCharges: OrphanCharge[] = [];
  readonly stopped: number[] = [];
  async refund(): Promise<RefundOutcome> {
    return { state: 'succeeded' };
  }
  async refundCharge(charge: OrphanCharge): Promise<RefundOutcome> {
    this.refundedCharges.push(charge);
    return { state: 'succeeded' };
  }
  async cancelSubscription(subscription: OrderRecord): Promise<void> {
    this.stopped.push(subscription.id);
  }
}

test('deleting an account stops its Stars subscription; a renewal that still comes is refunded, the admins told', async () => {
  const stars = new RecordingStars();
  api.services.payments.refunds.useGateway('stars', stars);
  const account = await api.account('free', { bonusTokens: 0 });
  const telegramId = 700_000 + account.user.id;
  await api.db.dataSource.query('UPDATE users SET telegram_id = $2 WHERE id = $1', [account.user.id, String(telegramId)]);
  const { order } = await api.services.payments.stars.startPurchase(account.user.id, 'plan-pro-month');
  const first = await api.services.payments.stars.paymentReceived({
    telegramUserId: telegramId,
    payload: order.reference,
    currency: 'XTR',
    totalAmount: order.amountMinor,
    chargeId: `charge-first-${account.user.id}`,
    isRecurring: true,
    isFirstRecurring: true,
  });
  expect(first.outcome).toBe('fulfilled');
  // An open Stars checkout too.
  const open = await api.services.payments.stars.startPurchase(account.user.id, 'tokens-100');

  const token = await api.accessToken(account);
  expect((await api.request('POST', '/api/v2/user/delete', { token, body: { password: account.password } })).status).toBe(204);
  expect(stars.stopped).toEqual([order.id]);
  expect(
    await api.services.payments.stars.preCheckout({
      telegramUserId: telegramId,
      payload: open.order.reference,
      currency: 'XTR',
      totalAmount: open.order.amountMinor,
    }),
  ).toEqual({
    ok: false,
    reason: 'unknown_order',
  });

  // Telegram renews it anyway (the stop had not reached it): the charge goes back.
  const renewal = await api.services.payments.stars.paymentReceived({
    telegramUserId: telegramId,
    payload: order.reference,
    currency: 'XTR',
    totalAmount: order.amountMinor,
    chargeId: `charge-renewal-${account.user.id}`,
    isRecurring: true,
  });
  expect(renewal.outcome).toBe('refunded');
  expect(stars.refundedCharges).toEqual([
    { chargeId: `charge-renewal-${account.user.id}`, amountMinor: order.amountMinor, currency: 'XTR', telegramId: String(telegramId) },
  ]);
  expect(orphans.find((e) => e.chargeId === `charge-renewal-${account.user.id}`)).toMatchObject({
    provider: 'stars',
    reason: 'unknown_order',
    outcome: 'refunded',
    reference: order.reference,
  });
});
