import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { UserEntity } from '../../src/db/entities';
import { floodWait } from './fake-telegram';
import { buttonsOf, lastKeyboard, press, startBotHarness, type BotHarness } from './harness';

const ADMIN = 4_900_999;
let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness({ adminIds: [ADMIN] });
});
afterAll(() => h.close());

const ds = () => h.engine.db.dataSource;
const accountOf = (telegramId: number) =>
  ds()
    .getRepository(UserEntity)
    .findOneByOrFail({ telegramId: String(telegramId) });
const lastText = (chatId: number) => h.telegram.sentTexts(chatId).pop() ?? '';
/** The admin chat also receives notices: the newest reply that is not one. */
const lastAdminReply = () =>
  h.telegram
    .sentTexts(ADMIN)
    .filter((t) => !/^(💰|↩️|🆕)/u.test(t))
    .pop() ?? '';

async function expectLedgerMatchesBalance(userId: number): Promise<void> {
  const b = await getBalance(ds(), userId);
  expect(await ledgerTotals(ds(), userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

/** /buy, then a button: the invoice the bot sent for it. */
async function invoiceFor(user: ReturnType<BotHarness['user']>, articleId: string, method: 'sendInvoice' | 'createInvoiceLink') {
  await h.send(user.text('/buy'));
  const mark = h.telegram.calls.length;
  await press(h, user, new RegExp(`^pay:${articleId}$`));
  const call = h.telegram.calls.slice(mark).find((c) => c.method === method);
  if (!call) throw new Error(`no ${method}`);
  return call;
}

test('/buy lists packages and plans with Stars prices; a package is a Stars invoice; pre-checkout, payment, thanks, admin notice', async () => {
  const user = h.user(4_900_001, { languageCode: 'en', firstName: 'Maria' });
  await h.send(user.text('/start'));
  await h.send(user.text('/buy'));
  const list = lastKeyboard(h.telegram, user.id);
  expect(list.payload.text).toContain('Telegram Stars');
  expect(buttonsOf(list).map((b) => b.text)).toEqual(expect.arrayContaining(['500 tokens · 300 ⭐', 'Pro · 500 ⭐ / 30 days']));

  const invoice = await invoiceFor(user, 'tokens-500', 'sendInvoice');
  expect(invoice.payload).toMatchObject({
    chat_id: user.id,
    currency: 'XTR',
    provider_token: '',
    prices: [{ label: expect.any(String), amount: 300 }],
  });
  const payload = String(invoice.payload.payload);
  expect(payload).toMatch(/^ord_[0-9a-f]{24}$/);

  const started = Date.now();
  await h.send(user.preCheckout(payload, 300));
  const answer = h.telegram.callsOf('answerPreCheckoutQuery').pop()!;
  expect(answer.at - started).toBeLessThan(10_000);
  expect(answer.payload).toMatchObject({ ok: true });

  const account = await accountOf(user.id);
  const before = await getBalance(ds(), account.id);
  await h.send(user.successfulPayment(payload, 300, 'stxCharge500A'));
  expect(lastText(user.id)).toBe(`✅ Thank you! 500 bonus tokens were added. Balance: ${before.total + 500} tkn.`);
  expect((await getBalance(ds(), account.id)).bonusTokens).toBe(before.bonusTokens + 500);
  const notice = await h.telegram.waitForCall(
    (c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === ADMIN && String(c.payload.text).startsWith('💰'),
  );
  expect(notice.payload.text).toBe('💰 Paid: Maria bought 500 tokens for 300 XTR (via stars, charge stxCharge500A).');

  // The same successful_payment again (a redelivered update): nothing more.
  await h.send(user.successfulPayment(payload, 300, 'stxCharge500A'));
  expect(lastText(user.id)).toBe('This payment has already been counted.');
  expect((await getBalance(ds(), account.id)).bonusTokens).toBe(before.bonusTokens + 500);
  await expectLedgerMatchesBalance(account.id);
});

test("pre-checkout refuses a wrong amount, an unknown order, another user's order and a paid one, in the user's language", async () => {
  const user = h.user(4_900_002, { languageCode: 'ru' });
  const other = h.user(4_900_003, { languageCode: 'en' });
  const invoice = await invoiceFor(user, 'tokens-100', 'sendInvoice');
  const payload = String(invoice.payload.payload);

  const started = Date.now();
  await h.send(user.preCheckout(payload, 74));
  const wrong = h.telegram.callsOf('answerPreCheckoutQuery').pop()!;
  expect(wrong.at - started).toBeLessThan(10_000);
  expect(wrong.payload).toMatchObject({ ok: false, error_message: 'Цена этого заказа изменилась. Откройте /buy и начните заново.' });

  await h.send(user.preCheckout(payload, 75, 'USD'));
  expect(h.telegram.callsOf('answerPreCheckoutQuery').pop()!.payload).toMatchObject({ ok: false });
  await h.send(user.preCheckout('ord_000000000000000000000000', 75));
  expect(h.telegram.callsOf('answerPreCheckoutQuery').pop()!.payload).toMatchObject({
    ok: false,
    error_message: expect.stringContaining('недействителен'),
  });
  await h.send(other.preCheckout(payload, 75));
  expect(h.telegram.callsOf('answerPreCheckoutQuery').pop()!.payload).toMatchObject({
    ok: false,
    error_message: 'This order is not valid. Open /buy and start again.',
  });

  await h.send(user.preCheckout(payload, 75));
  expect(h.telegram.callsOf('answerPreCheckoutQuery').pop()!.payload).toMatchObject({ ok: true });
  await h.send(user.successfulPayment(payload, 75, 'stxCharge100'));
  await h.send(user.preCheckout(payload, 75));
  expect(h.telegram.callsOf('answerPreCheckoutQuery').pop()!.payload).toMatchObject({
    ok: false,
    error_message: expect.stringContaining('уже оплачен'),
  });
});

test('a plan is a 30-day Stars subscription: first payment sets plan and allowance, a renewal extends it, cancel keeps it to the end', async () => {
  const user = h.user(4_900_004, { languageCode: 'en' });
  const link = await invoiceFor(user, 'plan-pro-month', 'createInvoiceLink');
  expect(link.payload).toMatchObject({ currency: 'XTR', provider_token: '', subscription_period: 2592000, prices: [{ amount: 500 }] });
  const offer = h.telegram.calls.filter((c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === user.id).pop()!;
  const markup = offer.payload.reply_markup as { inline_keyboard: { text: string; url?: string }[][] };
  expect(markup.inline_keyboard.flat()).toEqual([{ text: 'Pay 500 ⭐', url: link.result }]);
  const payload = String(link.payload.payload);

  await h.send(user.preCheckout(payload, 500));
  expect(h.telegram.callsOf('answerPreCheckoutQuery').pop()!.payload).toMatchObject({ ok: true });
  const first = Math.floor(Date.now() / 1000) + 2592000;
  await h.send(user.successfulPayment(payload, 500, 'stxSubFirst', { first: true, expiresAt: first }));
  expect(lastText(user.id)).toMatch(/^✅ Thank you! Your Pro plan is active until .+\. Balance: [\d,]+ tkn\.$/);
  let account = await accountOf(user.id);
  expect(account.planSlug).toBe('pro');
  expect((await getBalance(ds(), account.id)).planTokens).toBe(3000);
  const firstEnd = new Date(account.planExpiresAt!).getTime();
  expect(Math.abs(firstEnd - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);

  // Renewal: Telegram charges again with the first invoice's payload and is_recurring.
  await h.send(user.successfulPayment(payload, 500, 'stxSubRenew1', { first: false, expiresAt: first + 2592000 }));
  account = await accountOf(user.id);
  expect(new Date(account.planExpiresAt!).getTime() - firstEnd).toBe(30 * 86_400_000);
  await h.send(user.successfulPayment(payload, 500, 'stxSubRenew1', { first: false, expiresAt: first + 2592000 }));
  expect(new Date((await accountOf(user.id)).planExpiresAt!).getTime() - firstEnd).toBe(30 * 86_400_000);
  const orders = await ds().query(
    `SELECT status, parent_order_id IS NOT NULL AS renewal FROM payment_orders WHERE user_id = $1 AND status <> 'canceled' ORDER BY id`,
    [account.id],
  );
  expect(orders).toEqual([
    { status: 'fulfilled', renewal: false },
    { status: 'fulfilled', renewal: true },
  ]);

  await h.send(user.text('/balance'));
  expect(buttonsOf(lastKeyboard(h.telegram, user.id)).map((b) => b.callback_data)).toContain('sub:cancel');
  await press(h, user, /^sub:cancel$/);
  expect(h.telegram.callsOf('editUserStarSubscription').pop()!.payload).toEqual({
    user_id: user.id,
    telegram_payment_charge_id: 'stxSubFirst',
    is_canceled: true,
  });
  expect(lastText(user.id)).toMatch(/^Your subscription will not renew\. The Pro plan stays active until/);
  account = await accountOf(user.id);
  expect(account.planSlug).toBe('pro');
  expect(new Date(account.planExpiresAt!).getTime() - firstEnd).toBe(30 * 86_400_000);
  await h.send(user.text('/balance'));
  expect(buttonsOf(lastKeyboard(h.telegram, user.id)).map((b) => b.callback_data)).not.toContain('sub:cancel');
  await expectLedgerMatchesBalance(account.id);
});

test('/paysupport tells how to get help', async () => {
  const user = h.user(4_900_005, { languageCode: 'en' });
  await h.send(user.text('/paysupport'));
  expect(lastText(user.id)).toContain('Payment help');
  const ru = h.user(4_900_006, { languageCode: 'ru' });
  await h.send(ru.text('/paysupport'));
  expect(lastText(ru.id)).toContain('Помощь с оплатой');
});

test('/admin refund <charge id>: refundStarPayment, then what is left is taken back and what was spent is said; twice is done once', async () => {
  const admin = h.user(ADMIN, { languageCode: 'en' });
  const user = h.user(4_900_007, { languageCode: 'en', firstName: 'Ivan' });
  const invoice = await invoiceFor(user, 'tokens-500', 'sendInvoice');
  const payload = String(invoice.payload.payload);
  await h.send(user.preCheckout(payload, 300));
  await h.send(user.successfulPayment(payload, 300, 'stxRefundMe'));
  const account = await accountOf(user.id);
  const bonusBefore = (await getBalance(ds(), account.id)).bonusTokens;
  // Spend some of it: 350 of the bonus tokens (the Starter grant of 50 goes first here, the rest from the package).
  await ds().query(
    `WITH upd AS (UPDATE balances SET bonus_tokens = bonus_tokens - 350 WHERE user_id = $1 RETURNING user_id)
     INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta) SELECT user_id, 'reserve', 'test-spend', 0, -350 FROM upd`,
    [account.id],
  );
  const left = bonusBefore - 350;

  await h.send(admin.text('/admin refund stxUnknownCharge'));
  expect(lastAdminReply()).toBe('No paid order has the charge id stxUnknownCharge.');

  await h.send(admin.text('/admin refund stxRefundMe'));
  const refund = h.telegram.callsOf('refundStarPayment').pop()!;
  expect(refund.payload).toEqual({ user_id: user.id, telegram_payment_charge_id: 'stxRefundMe' });
  const taken = Math.min(500, left);
  expect(lastAdminReply()).toMatch(
    new RegExp(`^✅ Refunded order ord_[0-9a-f]+: ${taken} tokens taken back; ${500 - taken} had already been spent`),
  );
  expect((await getBalance(ds(), account.id)).bonusTokens).toBe(left - taken);
  const notice = await h.telegram.waitForCall(
    (c) => c.method === 'sendMessage' && Number(c.payload.chat_id) === ADMIN && String(c.payload.text).startsWith('↩️'),
  );
  expect(notice.payload.text).toBe(`↩️ Refunded: Ivan, 500 tokens, 300 XTR: ${taken} tokens taken back, ${500 - taken} already spent.`);

  await h.send(admin.text('/admin refund stxRefundMe'));
  expect(lastAdminReply()).toBe('This charge has already been refunded.');
  expect((await getBalance(ds(), account.id)).bonusTokens).toBe(left - taken);
  await expectLedgerMatchesBalance(account.id);

  // Not an admin: nothing happens.
  await h.send(user.text('/admin refund stxRefundMe'));
  expect(lastText(user.id)).toBe('This command is for administrators only.');

  // The refund that changed the order is in the audit log once, as the bot admin did it; the repeat is not.
  const audit = await ds().query(
    `SELECT a.actor_label, a.door, a.after FROM admin_audit_log a JOIN payment_orders o ON a.target_id = o.id::text
      WHERE a.action = 'order.refund' AND o.provider_charge_id = 'stxRefundMe'`,
  );
  expect(audit).toEqual([
    {
      actor_label: `bot:${ADMIN}`,
      door: 'bot',
      after: expect.objectContaining({ status: 'refunded', refund: 'refunded', tokens_taken: taken }),
    },
  ]);
});

test('/admin refund: Telegram answering CHARGE_ALREADY_REFUNDED counts as done; a flood wait is ridden out', async () => {
  const admin = h.user(ADMIN, { languageCode: 'en' });
  const user = h.user(4_900_008, { languageCode: 'en' });
  const invoice = await invoiceFor(user, 'tokens-100', 'sendInvoice');
  const payload = String(invoice.payload.payload);
  await h.send(user.preCheckout(payload, 75));
  await h.send(user.successfulPayment(payload, 75, 'stxRefundedElsewhere'));
  h.telegram.refundedCharges.add('stxRefundedElsewhere');
  h.telegram.failNext('refundStarPayment', floodWait(1));
  await h.send(admin.text('/admin refund stxRefundedElsewhere'));
  expect(
    h.telegram.callsOf('refundStarPayment').filter((c) => c.payload.telegram_payment_charge_id === 'stxRefundedElsewhere'),
  ).toHaveLength(2);
  expect(lastAdminReply()).toMatch(/^✅ Refunded order/);
  const account = await accountOf(user.id);
  const [order] = await ds().query(`SELECT status FROM payment_orders WHERE provider_charge_id = 'stxRefundedElsewhere'`);
  expect(order.status).toBe('refunded');
  await expectLedgerMatchesBalance(account.id);
});

test('/admin refund of a subscription payment ends the plan now, takes back the unspent allowance and stops the renewals', async () => {
  const admin = h.user(ADMIN, { languageCode: 'en' });
  const user = h.user(4_900_009, { languageCode: 'en' });
  const link = await invoiceFor(user, 'plan-basic-month', 'createInvoiceLink');
  const payload = String(link.payload.payload);
  await h.send(user.preCheckout(payload, 250));
  await h.send(user.successfulPayment(payload, 250, 'stxSubRefund', { first: true, expiresAt: Math.floor(Date.now() / 1000) + 2592000 }));
  const account = await accountOf(user.id);
  expect(account.planSlug).toBe('basic');
  await h.send(admin.text('/admin refund stxSubRefund'));
  expect(lastAdminReply()).toMatch(/^✅ Refunded order ord_[0-9a-f]+: 1,000 tokens taken back; 0 had already been spent/);
  expect(h.telegram.callsOf('editUserStarSubscription').pop()!.payload).toEqual({
    user_id: user.id,
    telegram_payment_charge_id: 'stxSubRefund',
    is_canceled: true,
  });
  expect((await accountOf(user.id)).planSlug).toBe('free');
  expect((await getBalance(ds(), account.id)).planTokens).toBe(0);
  await expectLedgerMatchesBalance(account.id);
});
