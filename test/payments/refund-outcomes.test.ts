// Refunds that match the money: a YooKassa refund answered `pending` leaves the order `refund_pending` (nothing taken
// back) and is followed up until it resolves; `canceled` keeps the order fulfilled, takes nothing and tells the
// admins. The buyer hears of every refund: a bot message for Stars, a mail and a `payment.refunded` webhook for a card.
import { Webhook } from 'standardwebhooks';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { PaymentOrderEntity } from '../../src/db/entities';
import { createYooKassaSandbox, type RefundOutcome } from '../../src/sandbox/yookassa';
import { accountOf, messageIdOf, startBotHarness, type BotHarness } from '../bot/harness';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { untilPasses } from '../support/wait';

const ADMIN = 4_980_999;
let h: BotHarness;
let receiver: Receiver;
let outcome: RefundOutcome = 'succeeded';

beforeAll(async () => {
  h = await startBotHarness({
    adminIds: [ADMIN],
    env: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_BASE_MS: '600' },
    handlers: { yookassa: createYooKassaSandbox({ refundOutcome: () => outcome }) },
  });
  await h.engine.startWorkers();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

const ds = () => h.engine.db.dataSource;
const lastAdminText = () => h.telegram.sentTexts(ADMIN).pop() ?? '';
const orderOf = (id: number) => ds().getRepository(PaymentOrderEntity).findOneByOrFail({ id });

/** A Telegram user with an email, 500 tokens bought by card, a webhook endpoint for refunds. */
async function cardBuyer(telegramId: number, email: string) {
  const user = h.user(telegramId, { languageCode: 'en' });
  await h.send(user.text('/start'));
  const account = await accountOf(h, telegramId);
  await ds().query('UPDATE users SET email = $2 WHERE id = $1', [account.id, email]);
  const hook = await h.engine.services.webhooks.endpoints.create(account.id, { url: receiver.url, events: ['payment.refunded'] });
  const { carrier } = h.engine.services.payments;
  const checkout = await carrier.initiate(account.id, 'tokens-500');
  await fetch(`${checkout.confirmation_url!}/approve`, { method: 'POST', redirect: 'manual' });
  const order = await orderOf(checkout.order_id);
  expect(await carrier.sync(order, (await carrier.provider!.getPayment(order.providerPaymentId!))!)).toBe('fulfilled');
  const paid = await orderOf(order.id);
  return { user, account, order: paid, chargeId: paid.providerChargeId!, hook };
}

async function mailsTo(email: string): Promise<{ subject: string; text: string }[]> {
  const rows = await ds().query<{ data: { to: string; subject: string; text: string } }[]>(
    `SELECT data FROM pgboss.job WHERE name = 'mail-send' AND data->>'to' = $1`,
    [email],
  );
  return rows.map((r) => r.data);
}

async function expectLedgerMatchesBalance(userId: number): Promise<void> {
  const b = await getBalance(ds(), userId);
  expect(await ledgerTotals(ds(), userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

test('pending: refund_pending with nothing taken, followed up until it succeeds; then refunded, mail and payment.refunded', async () => {
  const email = 'pending-buyer@example.com';
  const { account, order, chargeId, hook } = await cardBuyer(4_980_001, email);
  const before = await getBalance(ds(), account.id);
  outcome = 'pending';
  await h.send(h.user(ADMIN, { languageCode: 'en' }).text(`/admin refund ${chargeId}`));
  expect(lastAdminText()).toMatch(/^⏳ The refund of order ord_[0-9a-f]+ is pending at the payment provider/);
  let current = await orderOf(order.id);
  expect(current.status).toBe('refund_pending');
  expect(current.providerRefundId).toMatch(/^[0-9a-f-]{36}$/);
  expect(await getBalance(ds(), account.id)).toEqual(before);
  const view = await h.engine.services.payments.order(account.id, order.id);
  expect(view.status).toBe('refund_pending');

  // Still pending after the job asked again: nothing changes.
  await untilPasses(async () => {
    const runs = await ds().query(`SELECT retry_count FROM pgboss.job WHERE name = 'payment-refund' AND data->>'orderId' = $1`, [
      String(order.id),
    ]);
    expect(Math.max(...runs.map((r: { retry_count: number }) => r.retry_count))).toBeGreaterThanOrEqual(1);
  }, 30_000);
  expect((await orderOf(order.id)).status).toBe('refund_pending');
  expect(await mailsTo(email)).toEqual([]);

  // The bank completes it: the follow-up sees `succeeded`, and only now are the tokens taken back.
  const settled = await fetch(`${h.engine.sandbox.mountUrl('yookassa')}/refunds/${current.providerRefundId}/succeed`, { method: 'POST' });
  expect(settled.status).toBe(200);
  await untilPasses(async () => expect((await orderOf(order.id)).status).toBe('refunded'), 60_000);
  current = await orderOf(order.id);
  expect(current.refundTokensTaken).toBe(500);
  expect((await getBalance(ds(), account.id)).bonusTokens).toBe(before.bonusTokens - 500);
  await expectLedgerMatchesBalance(account.id);

  await untilPasses(async () => expect(await mailsTo(email)).toHaveLength(1));
  const [mail] = await mailsTo(email);
  expect(mail.subject).toBe('Refund of your payment: 500 tokens');
  expect(mail.text).toContain('590.00 RUB');
  const [got] = await receiver.waitFor(1, (r) => r.body.includes('payment.refunded'));
  expect(new Webhook(hook.secret).verify(got.body, got.headers)).toEqual({
    event: 'payment.refunded',
    order_id: order.id,
    article_id: 'tokens-500',
    kind: 'tokens',
    amount: 590,
    currency: 'RUB',
    provider: 'yookassa',
    tokens_taken: 500,
    tokens_spent: 0,
    created_at: expect.any(String),
  });
  await untilPasses(() => expect(h.telegram.sentTexts(ADMIN).some((t) => t.startsWith('↩️ Refunded'))).toBe(true));
}, 120_000);

test('canceled at once: the order stays fulfilled, nothing taken back, the admins told, the buyer not told of a refund', async () => {
  const email = 'canceled-buyer@example.com';
  const { account, order, chargeId } = await cardBuyer(4_980_002, email);
  const before = await getBalance(ds(), account.id);
  const events = receiver.received.length;
  outcome = 'canceled';
  await h.send(h.user(ADMIN, { languageCode: 'en' }).text(`/admin refund ${chargeId}`));
  expect(h.telegram.sentTexts(ADMIN).some((t) => /^❌ The payment provider canceled the refund of order ord_[0-9a-f]+ \(/.test(t))).toBe(
    true,
  );
  await untilPasses(() =>
    expect(h.telegram.sentTexts(ADMIN).some((t) => t.startsWith(`❌ Refund canceled by yookassa: order ${order.reference}`))).toBe(true),
  );
  const current = await orderOf(order.id);
  expect(current).toMatchObject({ status: 'fulfilled', refundRequestedAt: null, refundedAt: null });
  expect(current.refundError).toMatch(/^refund canceled: yoo_money: rejected_by_payee/);
  expect(await getBalance(ds(), account.id)).toEqual(before);
  await expectLedgerMatchesBalance(account.id);
  expect(await mailsTo(email)).toEqual([]);
  expect(receiver.received.slice(events).filter((r) => r.body.includes('payment.refunded'))).toEqual([]);

  // It can be asked again later; this time the money goes back.
  outcome = 'succeeded';
  await h.send(h.user(ADMIN, { languageCode: 'en' }).text(`/admin refund ${chargeId}`));
  expect(lastAdminText()).toMatch(/^✅ Refunded order/);
  expect((await orderOf(order.id)).status).toBe('refunded');
});

test('a pending refund that the bank then cancels goes back to fulfilled: nothing taken, admins told', async () => {
  const { account, order, chargeId } = await cardBuyer(4_980_003, 'pending-canceled@example.com');
  const before = await getBalance(ds(), account.id);
  outcome = 'pending';
  await h.send(h.user(ADMIN, { languageCode: 'en' }).text(`/admin refund ${chargeId}`));
  const pending = await orderOf(order.id);
  expect(pending.status).toBe('refund_pending');
  await fetch(`${h.engine.sandbox.mountUrl('yookassa')}/refunds/${pending.providerRefundId}/cancel`, { method: 'POST' });
  await untilPasses(async () => expect((await orderOf(order.id)).status).toBe('fulfilled'), 60_000);
  await untilPasses(() =>
    expect(h.telegram.sentTexts(ADMIN).some((t) => t.startsWith(`❌ Refund canceled by yookassa: order ${order.reference}`))).toBe(true),
  );
  expect(await getBalance(ds(), account.id)).toEqual(before);
  await expectLedgerMatchesBalance(account.id);
}, 120_000);

test('a Stars refund tells the buyer in the bot', async () => {
  const user = h.user(4_980_004, { languageCode: 'en' });
  await h.send(user.text('/buy'));
  const mark = h.telegram.calls.length;
  const list = h.telegram.calls.filter((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === user.id).pop()!;
  await h.send(user.press('pay:tokens-100', { message_id: messageIdOf(list) }));
  const invoice = h.telegram.calls.slice(mark).find((c) => c.method === 'sendInvoice')!;
  const payload = String(invoice.payload.payload);
  await h.send(user.preCheckout(payload, 75));
  await h.send(user.successfulPayment(payload, 75, 'stxTellBuyer'));
  await h.send(h.user(ADMIN, { languageCode: 'en' }).text('/admin refund stxTellBuyer'));
  await untilPasses(() =>
    expect(h.telegram.sentTexts(user.id).pop()).toBe(
      '↩️ Your payment of 75 ⭐ for 100 tokens was refunded. 100 tokens were taken back (0 had already been used).',
    ),
  );
});
