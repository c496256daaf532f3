// Subscriptions never lose a paid period: buying another plan stops the other Stars subscription (and says so); a
// renewal that still arrives while a higher plan runs comes in as bonus tokens worth its plan's allowance; Balance
// offers "Cancel subscription" whenever one still renews.
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { PaymentOrderEntity } from '../../src/db/entities';
import { accountOf, buttonsOf, lastKeyboard, press, startBotHarness, type BotHarness } from './harness';
import type { TestUser } from './updates';

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness();
});
afterAll(() => h.close());

const ds = () => h.engine.db.dataSource;
const lastText = (chatId: number) => h.telegram.sentTexts(chatId).pop() ?? '';
const DAY = 86_400_000;

/** Subscribes to Basic with Stars (first payment); answers the payload Telegram repeats on every renewal. */
async function subscribeBasicWithStars(user: TestUser, chargeId: string): Promise<string> {
  await h.send(user.text('/buy'));
  const mark = h.telegram.calls.length;
  await press(h, user, /^pay:plan-basic-month$/);
  const link = h.telegram.calls.slice(mark).find((c) => c.method === 'createInvoiceLink')!;
  const payload = String(link.payload.payload);
  await h.send(user.preCheckout(payload, 250));
  await h.send(user.successfulPayment(payload, 250, chargeId, { first: true, expiresAt: Math.floor(Date.now() / 1000) + 2592000 }));
  expect((await accountOf(h, user.id)).planSlug).toBe('basic');
  return payload;
}

/** Buys Elite on the web: the carrier's sandbox checkout, approved on its page, then the payment as its API reports it. */
async function buyEliteByCard(userId: number): Promise<void> {
  const { carrier } = h.engine.services.payments;
  const checkout = await carrier.initiate(userId, 'plan-elite-month');
  const approved = await fetch(`${checkout.confirmation_url!}/approve`, { method: 'POST', redirect: 'manual' });
  expect(approved.status).toBeLessThan(400);
  const [row] = await ds().query('SELECT provider_payment_id FROM payment_orders WHERE id = $1', [checkout.order_id]);
  const payment = await carrier.provider!.getPayment(row.provider_payment_id);
  expect(payment?.status).toBe('succeeded');
  const order = await ds().getRepository(PaymentOrderEntity).findOneByOrFail({ id: checkout.order_id });
  expect(await carrier.sync(order, payment!)).toBe('fulfilled');
  await h.app.deps.tasks.drain();
}

async function expectNothingNegativeAndLedgerMatches(userId: number): Promise<void> {
  const negative = await ds().query(
    `SELECT kind, plan_delta, bonus_delta, note FROM ledger_entries WHERE user_id = $1 AND (plan_delta < 0 OR bonus_delta < 0)`,
    [userId],
  );
  expect(negative).toEqual([]);
  const b = await getBalance(ds(), userId);
  expect(await ledgerTotals(ds(), userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

test('Basic by Stars, then Elite by card: the Basic subscription is canceled and the user told; a Basic renewal that still comes is bonus', async () => {
  const user = h.user(4_970_001, { languageCode: 'en' });
  const payload = await subscribeBasicWithStars(user, 'stxBasicFirst');
  await h.send(user.text('/balance'));
  expect(buttonsOf(lastKeyboard(h.telegram, user.id)).map((b) => b.callback_data)).toContain('sub:cancel');

  const account = await accountOf(h, user.id);
  await buyEliteByCard(account.id);
  expect(h.telegram.callsOf('editUserStarSubscription').pop()!.payload).toEqual({
    user_id: user.id,
    telegram_payment_charge_id: 'stxBasicFirst',
    is_canceled: true,
  });
  expect(lastText(user.id)).toBe(
    'ℹ️ You bought the Elite plan, so your Basic Stars subscription was canceled: it will not be charged again.',
  );
  let elite = await accountOf(h, user.id);
  expect(elite.planSlug).toBe('elite');
  const eliteUntil = new Date(elite.planExpiresAt!).getTime();
  expect(Math.abs(eliteUntil - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
  const before = await getBalance(ds(), account.id);
  const eliteAllowance = (await h.engine.services.plans.get('elite')).monthlyTokens;
  expect(before.planTokens).toBe(eliteAllowance);

  // Telegram had already started the Basic renewal: it still arrives.
  await h.send(
    user.successfulPayment(payload, 250, 'stxBasicRenew1', { first: false, expiresAt: Math.floor(Date.now() / 1000) + 2 * 2592000 }),
  );
  const basicAllowance = (await h.engine.services.plans.get('basic')).monthlyTokens;
  expect(lastText(user.id)).toMatch(
    new RegExp(
      `^✅ Thank you! Your Elite plan runs until .+, so this Basic payment was credited as ${basicAllowance.toLocaleString('en-US')} bonus tokens`,
    ),
  );
  elite = await accountOf(h, user.id);
  expect(elite.planSlug).toBe('elite');
  expect(new Date(elite.planExpiresAt!).getTime()).toBe(eliteUntil);
  const after = await getBalance(ds(), account.id);
  expect(after.planTokens).toBe(before.planTokens);
  expect(after.bonusTokens).toBe(before.bonusTokens + basicAllowance);
  await expectNothingNegativeAndLedgerMatches(account.id);

  // Redelivered: counted once.
  await h.send(
    user.successfulPayment(payload, 250, 'stxBasicRenew1', { first: false, expiresAt: Math.floor(Date.now() / 1000) + 2 * 2592000 }),
  );
  expect((await getBalance(ds(), account.id)).bonusTokens).toBe(before.bonusTokens + basicAllowance);

  // Nothing renews any more: no cancel button.
  await h.send(user.text('/balance'));
  expect(buttonsOf(lastKeyboard(h.telegram, user.id)).map((b) => b.callback_data)).not.toContain('sub:cancel');
});

test('when Telegram could not cancel it, the Basic subscription stays cancellable from Balance while on Elite', async () => {
  const user = h.user(4_970_002, { languageCode: 'en' });
  await subscribeBasicWithStars(user, 'stxBasicFirst2');
  const account = await accountOf(h, user.id);
  h.telegram.failNext('editUserStarSubscription', { error_code: 400, description: 'Bad Request: SUBSCRIPTION_NOT_FOUND' });
  await buyEliteByCard(account.id);
  expect((await accountOf(h, user.id)).planSlug).toBe('elite');

  await h.send(user.text('/balance'));
  expect(buttonsOf(lastKeyboard(h.telegram, user.id)).map((b) => b.callback_data)).toContain('sub:cancel');
  await press(h, user, /^sub:cancel$/);
  expect(h.telegram.callsOf('editUserStarSubscription').pop()!.payload).toEqual({
    user_id: user.id,
    telegram_payment_charge_id: 'stxBasicFirst2',
    is_canceled: true,
  });
  expect(lastText(user.id)).toBe('Your Basic subscription will not renew. Your current plan is unchanged.');
  expect((await accountOf(h, user.id)).planSlug).toBe('elite');
  await expectNothingNegativeAndLedgerMatches(account.id);
});

test('a second Stars subscription to another plan cancels the first', async () => {
  const user = h.user(4_970_003, { languageCode: 'en' });
  await subscribeBasicWithStars(user, 'stxBasicFirst3');
  await h.send(user.text('/buy'));
  const mark = h.telegram.calls.length;
  await press(h, user, /^pay:plan-pro-month$/);
  const link = h.telegram.calls.slice(mark).find((c) => c.method === 'createInvoiceLink')!;
  const payload = String(link.payload.payload);
  await h.send(user.preCheckout(payload, 500));
  await h.send(user.successfulPayment(payload, 500, 'stxProFirst3', { first: true, expiresAt: Math.floor(Date.now() / 1000) + 2592000 }));
  expect(h.telegram.callsOf('editUserStarSubscription').pop()!.payload).toEqual({
    user_id: user.id,
    telegram_payment_charge_id: 'stxBasicFirst3',
    is_canceled: true,
  });
  expect(h.telegram.sentTexts(user.id).join('\n')).toContain('your Basic Stars subscription was canceled');
  expect((await accountOf(h, user.id)).planSlug).toBe('pro');
  // The Pro subscription is the one Balance offers to cancel.
  await h.send(user.text('/balance'));
  await press(h, user, /^sub:cancel$/);
  expect(h.telegram.callsOf('editUserStarSubscription').pop()!.payload).toMatchObject({ telegram_payment_charge_id: 'stxProFirst3' });
});
