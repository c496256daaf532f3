// A whole Stars purchase through the fake Bot API as Telegram delivers it: long polling (getUpdates) and the
// webhook (Telegram POSTs to the URL given to setWebhook). The fake delivers only the update types the bot named in
// `allowed_updates`, so a bot that forgets `pre_checkout_query` never sees the checkout and the purchase fails here
// as it would on real Telegram.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Update } from 'grammy/types';
import { createApiApp } from '../../src/api/app';
import { ALLOWED_UPDATES, registerWebhook, startPolling, telegramWebhook } from '../../src/bot';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import type { RecordedCall } from './fake-telegram';
import { accountOf, buttonsOf, messageIdOf, startBotHarness, type BotHarness } from './harness';
import type { TestUser } from './updates';

const SECRET = 'stars-e2e-webhook-secret-0123456789';
let h: BotHarness;
let server: http.Server;
let base: string;

beforeAll(async () => {
  h = await startBotHarness();
  const app = createApiApp(h.engine.services, { telegramWebhook: telegramWebhook(h.app, SECRET) });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

/** The next call to the user's chat (after `mark`) matching `method`. */
function nextCall(user: TestUser, method: string, mark: number, extra: (c: RecordedCall) => boolean = () => true) {
  return h.telegram.waitForCall(
    (c) =>
      h.telegram.calls.indexOf(c) >= mark && c.method === method && Number(c.payload.chat_id ?? c.payload.user_id) === user.id && extra(c),
  );
}

/**
 * /buy, the 500-token package, the checkout and the payment, each update handed over by `deliver` (Telegram's way
 * of delivering in the mode under test). Ends when the bot has thanked the buyer.
 */
async function buyTokens(user: TestUser, chargeId: string, deliver: (u: Update) => Promise<void>): Promise<void> {
  let mark = h.telegram.calls.length;
  await deliver(user.text('/buy'));
  const list = await nextCall(user, 'sendMessage', mark, (c) => buttonsOf(c).length > 0);
  const button = buttonsOf(list).find((b) => b.callback_data === 'pay:tokens-500')!;
  expect(button).toBeDefined();

  mark = h.telegram.calls.length;
  await deliver(user.press(button.callback_data, { message_id: messageIdOf(list), text: String(list.payload.text) }));
  const invoice = await nextCall(user, 'sendInvoice', mark);
  const payload = String(invoice.payload.payload);

  mark = h.telegram.calls.length;
  const asked = Date.now();
  await deliver(user.preCheckout(payload, 300));
  const answer = await h.telegram.waitForCall((c) => h.telegram.calls.indexOf(c) >= mark && c.method === 'answerPreCheckoutQuery');
  expect(answer.payload).toMatchObject({ ok: true });
  expect(answer.at - asked).toBeLessThan(10_000);

  mark = h.telegram.calls.length;
  await deliver(user.successfulPayment(payload, 300, chargeId));
  const thanks = await nextCall(user, 'sendMessage', mark, (c) => String(c.payload.text).startsWith('✅'));
  expect(thanks.payload.text).toMatch(/^✅ Thank you! 500 bonus tokens were added\./);
}

async function expectCredited(user: TestUser): Promise<void> {
  const account = await accountOf(h, user.id);
  const balance = await getBalance(h.engine.db.dataSource, account.id);
  expect(balance.bonusTokens).toBe(50 + 500);
  expect(await ledgerTotals(h.engine.db.dataSource, account.id)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
}

test('the bot asks for every update type it handles, pre_checkout_query and my_chat_member among them', () => {
  expect(ALLOWED_UPDATES).toEqual(expect.arrayContaining(['message', 'callback_query', 'pre_checkout_query', 'my_chat_member']));
});

test('long polling: a Stars purchase completes; getUpdates named the checkout', async () => {
  const user = h.user(4_950_001, { languageCode: 'en' });
  const runner = await startPolling(h.app);
  try {
    await buyTokens(user, 'stxPolling1', (u) => {
      h.telegram.queueUpdate(u);
      return Promise.resolve();
    });
  } finally {
    await runner.stop();
  }
  const polls = h.telegram.callsOf('getUpdates');
  expect(polls[0].payload.allowed_updates).toEqual(expect.arrayContaining(['pre_checkout_query', 'my_chat_member']));
  expect(h.telegram.withheld).toEqual([]);
  await expectCredited(user);
});

test('webhook: a Stars purchase completes; setWebhook named the checkout', async () => {
  const user = h.user(4_950_002, { languageCode: 'en' });
  const url = `${base}/telegram/webhook`;
  await registerWebhook(h.app, url, SECRET);
  expect(h.telegram.webhookUrl).toBe(url);
  expect(h.telegram.callsOf('setWebhook').pop()!.payload).toMatchObject({
    url,
    secret_token: SECRET,
    allowed_updates: expect.arrayContaining(['message', 'callback_query', 'pre_checkout_query', 'my_chat_member']),
  });
  await buyTokens(user, 'stxWebhook1', async (u) => {
    expect(await h.telegram.pushUpdate(u)).toBe(200);
  });
  expect(h.telegram.withheld).toEqual([]);
  await expectCredited(user);
});

test('the fake is honest: a bot subscribed to messages and buttons only never sees the checkout', async () => {
  const user = h.user(4_950_003, { languageCode: 'en' });
  await h.app.bot.api.setWebhook(`${base}/telegram/webhook`, { secret_token: SECRET, allowed_updates: ['message', 'callback_query'] });
  const checkout = user.preCheckout('ord_000000000000000000000000', 300);
  const mark = h.telegram.calls.length;
  expect(await h.telegram.pushUpdate(checkout)).toBe('withheld');
  expect(h.telegram.calls.slice(mark).filter((c) => c.method === 'answerPreCheckoutQuery')).toEqual([]);
  // An empty list restores Telegram's default: every type but chat_member and the reactions.
  await h.app.bot.api.setWebhook(`${base}/telegram/webhook`, { secret_token: SECRET, allowed_updates: [] });
  expect(h.telegram.delivers(checkout)).toBe(true);
  expect(h.telegram.delivers({ update_id: 1, chat_member: {} } as unknown as Update)).toBe(false);
  expect(h.telegram.delivers({ update_id: 2, message_reaction: {} } as unknown as Update)).toBe(false);
  // Without the list at all, the previous setting stays.
  await h.app.bot.api.setWebhook(`${base}/telegram/webhook`, { secret_token: SECRET, allowed_updates: ['message'] });
  await h.app.bot.api.setWebhook(`${base}/telegram/webhook`, { secret_token: SECRET });
  expect(h.telegram.delivers(checkout)).toBe(false);
});
