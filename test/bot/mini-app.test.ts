// Issue 39, the Telegram Mini App, as production wires it: the HTTP API and the bot on one set of services, the bot
// talking to the fake Bot API. The bot's menu button opens the dashboard (an https PUBLIC_URL); the dashboard signs
// in with the `initData` Telegram signs (POST /api/v2/auth/telegram-webapp) on the same account as the bot, and a
// forged or stale one is 401; a purchase started there is a Stars invoice link that the bot's usual Stars flow
// fulfils; `startapp=ref_<code>` joins a new account to its inviter; /mode lists the assistants made there.
import type { Update } from 'grammy/types';
import { z } from 'zod';
import { createBot, registerWebhook, type TelegramBot } from '../../src/bot';
import { setMiniAppMenuButton } from '../../src/bot/transport/menu-button';
import { SessionSchema } from '../../src/api/openapi/components';
import { getBalance } from '../../src/core/billing/ledger';
import { UserEntity } from '../../src/db/entities';
import { ApiHarness, BOT_TOKEN, expectErrorShape, refreshCookieOf, startApi } from '../api/harness';
import { BOT_INFO, BOT_USER, FakeTelegram } from './fake-telegram';
import { buttonsOf, lastKeyboard, TEST_SETTINGS } from './harness';
import { TestUser } from './updates';

const PUBLIC_URL = 'https://nebula.example.test';
let telegram: FakeTelegram;
let api: ApiHarness;
let app: TelegramBot;

beforeAll(async () => {
  telegram = await FakeTelegram.start(BOT_TOKEN);
  api = await startApi({ PUBLIC_URL, TELEGRAM_API_ROOT: telegram.url });
  app = createBot(BOT_TOKEN, api.services, { botInfo: BOT_INFO, settings: TEST_SETTINGS, autoRetry: false });
  app.attach();
  await registerWebhook(app, `${PUBLIC_URL}/telegram/webhook`, 'mini-app-webhook-secret-0123456789');
});
afterAll(async () => {
  await app?.stop();
  await api?.close();
  await telegram?.close();
});

async function send(update: Update): Promise<void> {
  await app.bot.handleUpdate(update);
  await app.deps.tasks.drain();
}

const signIn = (initData: string) => api.request('POST', '/api/v2/auth/telegram-webapp', { body: { init_data: initData } });
const accountOf = (telegramId: number) => api.db.dataSource.getRepository(UserEntity).findOneByOrFail({ telegramId: String(telegramId) });
const now = () => Math.floor(Date.now() / 1000);

test('the bot’s menu button opens the dashboard as a Mini App; without an https PUBLIC_URL it is left alone', async () => {
  expect(telegram.menuButtonOf()).toEqual({ type: 'web_app', text: 'Open app', web_app: { url: `${PUBLIC_URL}/` } });
  const before = telegram.callsOf('setChatMenuButton').length;
  expect(await setMiniAppMenuButton(app.bot.api, app.deps.i18n, 'http://nebula.example.test')).toBe(false);
  expect(await setMiniAppMenuButton(app.bot.api, app.deps.i18n, undefined)).toBe(false);
  expect(telegram.callsOf('setChatMenuButton')).toHaveLength(before);
});

test('initData signs in on the bot’s account (the Telegram user id), both ways round, like the other sign-ins', async () => {
  const res = await signIn(telegram.webAppInitData({ id: 6_200_001, first_name: 'Olga', username: 'olga_tg', language_code: 'ru' }));
  expect(res.status).toBe(200);
  expect(z.strictObject(SessionSchema.shape).safeParse(res.body).success).toBe(true);
  expect(res.body).toMatchObject({ token_type: 'bearer', is_new_user: true, user: { name: 'Olga', plan: 'free', token_balance: 50 } });
  expect(refreshCookieOf(res)).toBe(res.body.refresh_token);
  const me = await api.request('GET', '/api/v2/user/me', { token: res.body.access_token });
  expect(me.body.id).toBe((await accountOf(6_200_001)).id);
  // The bot greets the same account, in the language Telegram named.
  await send(new TestUser(6_200_001, { firstName: 'Olga', languageCode: 'ru' }).text('/start'));
  expect(telegram.sentTexts(6_200_001).pop()).toMatch(/^👋 С возвращением, Olga!/);

  // A bot user opening the Mini App later reaches their account; the same initData may sign in again while fresh.
  await send(new TestUser(6_200_002, { firstName: 'Piet' }).text('/start'));
  const data = telegram.webAppInitData({ id: 6_200_002, first_name: 'Piet' });
  for (let i = 0; i < 2; i++) {
    const again = await signIn(data);
    expect(again.status).toBe(200);
    expect(again.body.is_new_user).toBe(false);
    expect(again.body.user.id).toBe((await accountOf(6_200_002)).id);
  }
});

test('a forged or stale initData is 401; a missing one 400', async () => {
  const user = { id: 6_200_010, first_name: 'Mallory' };
  const genuine = new URLSearchParams(telegram.webAppInitData(user));
  const tampered = new URLSearchParams(genuine);
  tampered.set('user', JSON.stringify({ ...user, id: 6_200_001 }));
  const withoutHash = new URLSearchParams(genuine);
  withoutHash.delete('hash');
  const doubled = `${genuine.toString()}&auth_date=${now()}`;
  const forged = [
    tampered.toString(),
    withoutHash.toString(),
    doubled,
    telegram.webAppInitData(user, { token: '987654321:another-bot-token' }),
    'not a query string at all',
  ];
  for (const initData of forged) expectErrorShape(await signIn(initData), 401, 'invalid_credentials');
  // A day is the limit: older is stale, within it is accepted.
  const stale = await signIn(telegram.webAppInitData(user, { authDate: now() - 86_400 - 5 }));
  expectErrorShape(stale, 401, 'invalid_credentials');
  expect(stale.body.message).toMatch(/too old/);
  expect((await signIn(telegram.webAppInitData(user, { authDate: now() - 86_400 + 60 }))).status).toBe(200);
  expectErrorShape(await signIn(telegram.webAppInitData(user, { authDate: now() + 3600 })), 401, 'invalid_credentials');
  expectErrorShape(await api.request('POST', '/api/v2/auth/telegram-webapp', { body: {} }), 400, 'validation_error');
  // Nothing was created for the forged ones.
  expect(await api.db.dataSource.getRepository(UserEntity).countBy({ telegramId: '6200001' })).toBe(1);
});

test('a blocked account is 403', async () => {
  await signIn(telegram.webAppInitData({ id: 6_200_020, first_name: 'Blocked' }));
  await api.db.dataSource.query('UPDATE users SET is_blocked = true WHERE telegram_id = $1', ['6200020']);
  expectErrorShape(await signIn(telegram.webAppInitData({ id: 6_200_020, first_name: 'Blocked' })), 403, 'account_blocked');
});

test('startapp=ref_<code> joins a new account to the inviter, whose link is the bot’s deep link', async () => {
  const inviter = await signIn(telegram.webAppInitData({ id: 6_200_030, first_name: 'Inviter' }));
  const referral = await api.request('GET', '/api/v2/user/referral', { token: inviter.body.access_token });
  expect(referral.body.link).toBe(`https://t.me/${BOT_USER.username}?start=ref_${referral.body.code}`);
  await signIn(telegram.webAppInitData({ id: 6_200_031, first_name: 'Friend' }, { startParam: `ref_${referral.body.code}` }));
  // An account that already exists is not tied by a later link.
  await signIn(telegram.webAppInitData({ id: 6_200_031, first_name: 'Friend' }, { startParam: `ref_${referral.body.code}` }));
  await signIn(telegram.webAppInitData({ id: 6_200_001, first_name: 'Olga' }, { startParam: `ref_${referral.body.code}` }));
  const after = await api.request('GET', '/api/v2/user/referral', { token: inviter.body.access_token });
  expect(after.body).toMatchObject({ invited: 1, earned_tokens: 0 });
});

test('a purchase in the Mini App is a Stars invoice link, paid in Telegram and fulfilled by the bot', async () => {
  const tgUser = new TestUser(6_200_040, { firstName: 'Buyer' });
  const session = await signIn(telegram.webAppInitData({ id: tgUser.id, first_name: 'Buyer' }));
  const token = session.body.access_token as string;
  const res = await api.request('POST', '/api/v2/payments/stars/invoice-link', { token, body: { article_id: 'tokens-100' } });
  expect(res.status).toBe(201);
  expect(res.body.order).toMatchObject({ status: 'pending', provider: 'stars', currency: 'XTR', article_id: 'tokens-100' });
  const invoice = telegram.invoiceOfLink(res.body.invoice_link);
  expect(invoice).toMatchObject({ payload: res.body.order.reference, currency: 'XTR', totalAmount: res.body.order.amount });
  expect(invoice?.subscriptionPeriod).toBeUndefined();

  // Telegram.WebApp.openInvoice(link): the user pays; the bot hears the checkout and the payment.
  const userId = (await accountOf(tgUser.id)).id;
  const before = await getBalance(api.db.dataSource, userId);
  await send(tgUser.preCheckout(invoice!.payload, invoice!.totalAmount));
  expect(telegram.callsOf('answerPreCheckoutQuery').pop()?.payload).toMatchObject({ ok: true });
  await send(tgUser.successfulPayment(invoice!.payload, invoice!.totalAmount, 'stxMiniApp1'));
  const order = await api.request('GET', `/api/v2/payments/orders/${res.body.order.id}`, { token });
  expect(order.body.status).toBe('fulfilled');
  expect((await getBalance(api.db.dataSource, userId)).bonusTokens).toBe(before.bonusTokens + 100);

  // A plan is a 30-day subscription link, as in the bot's own /buy.
  const plan = await api.request('POST', '/api/v2/payments/stars/invoice-link', { token, body: { article_id: 'plan-basic-month' } });
  expect(telegram.invoiceOfLink(plan.body.invoice_link)?.subscriptionPeriod).toBe(2_592_000);
  expectErrorShape(
    await api.request('POST', '/api/v2/payments/stars/invoice-link', { token, body: { article_id: 'nope' } }),
    400,
    'unknown_article',
  );
  // An account without Telegram pays by card instead.
  const web = await api.account('free');
  expectErrorShape(
    await api.request('POST', '/api/v2/payments/stars/invoice-link', {
      token: await api.accessToken(web),
      body: { article_id: 'tokens-100' },
    }),
    409,
    'telegram_account_required',
  );
});

test('/mode lists the assistants the account made in the dashboard, with a button to the page', async () => {
  const tgUser = new TestUser(6_200_050, { firstName: 'Author', languageCode: 'en' });
  const session = await signIn(telegram.webAppInitData({ id: tgUser.id, first_name: 'Author' }));
  const created = await api.request('POST', '/api/v2/assistants', {
    token: session.body.access_token,
    body: { name: 'Sommelier', description: 'Pairs wine with food', model_slug: 'gpt-6-luna', system_prompt: 'You are a sommelier.' },
  });
  expect(created.status).toBe(201);
  await send(tgUser.text('/mode'));
  const screen = lastKeyboard(telegram, tgUser.id);
  expect(screen.payload.text).toContain('👤 Sommelier — Pairs wine with food');
  expect(buttonsOf(screen).map((b) => b.text)).toContain('✓ 🚫 No persona');
  const page = (buttonsOf(screen) as unknown as { text: string; web_app?: { url: string } }[]).find((b) => b.web_app);
  expect(page).toEqual({ text: '🧩 Your assistants', web_app: { url: `${PUBLIC_URL}/assistants` } });
});

test('without a bot token the Mini App sign-in is 503; without a bot Stars links are 503', async () => {
  const bare = await startApi({ BOT_TOKEN: '' });
  try {
    expectErrorShape(await bare.request('POST', '/api/v2/auth/telegram-webapp', { body: { init_data: 'auth_date=1&hash=00' } }), 503);
    const account = await bare.account('free');
    expectErrorShape(
      await bare.request('POST', '/api/v2/payments/stars/invoice-link', {
        token: await bare.accessToken(account),
        body: { article_id: 'tokens-100' },
      }),
      503,
      'stars_unavailable',
    );
  } finally {
    await bare.close();
  }
});
