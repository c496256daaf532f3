/**
 * Issue 39: the dashboard as a Telegram Mini App, in real headless Chromium at a phone's 390 px, against the real
 * service with the bot on the fake Bot API. Telegram's client is stood in for as its docs describe it: the page is
 * opened with the launch parameters in its fragment, `window.Telegram.WebApp` carries init data signed as Telegram
 * signs it, and telegram-web-app.js (routed) is empty. Sign-in on the bot's account, a forged initData refused,
 * Stars paid through openInvoice and credited by the bot, the Assistants page, the referral card, and axe.
 * DOCS_SCREENSHOTS=1 writes the pictures of docs/bot.md (docs/img/miniapp-*.png).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Update } from 'grammy/types';
import type { Browser, Page } from 'playwright-core';
import { createBot, type TelegramBot } from '../../src/bot';
import { UserEntity } from '../../src/db/entities';
import { ApiHarness, BOT_TOKEN, startApi } from '../api/harness';
import { BOT_INFO, BOT_USER, FakeTelegram } from '../bot/fake-telegram';
import { TEST_SETTINGS } from '../bot/harness';
import { TestUser } from '../bot/updates';
import { eventually } from '../support/wait';
import { seriousAxeFindings } from './support/axe';
import { ensureWebBuild, launchBrowser, openDashboard, screenshot, type WatchedPage } from './support/browser';

jest.setTimeout(120_000);

const DOCS_IMG = path.resolve(__dirname, '..', '..', 'docs', 'img');
const THEME = {
  bg_color: '#ffffff',
  secondary_bg_color: '#f0f2f5',
  text_color: '#000000',
  hint_color: '#5e6670',
  link_color: '#1f6fb2',
  button_color: '#1f6fb2',
  button_text_color: '#ffffff',
  section_separator_color: '#d9dde1',
  destructive_text_color: '#b3261e',
};

let telegram: FakeTelegram;
let api: ApiHarness;
let bot: TelegramBot;
let browser: Browser;
let origin: string;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  ensureWebBuild();
  telegram = await FakeTelegram.start(BOT_TOKEN);
  api = await startApi({ TELEGRAM_API_ROOT: telegram.url });
  bot = createBot(BOT_TOKEN, api.services, { botInfo: BOT_INFO, settings: TEST_SETTINGS, autoRetry: false });
  bot.attach();
  origin = api.baseUrl.replace('127.0.0.1', 'localhost');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await bot?.stop();
  await api?.close();
  await telegram?.close();
});

afterEach(async () => {
  const errors = opened.flatMap((w) => w.errors);
  await Promise.all(opened.splice(0).map((w) => w.context.close()));
  expect(errors).toEqual([]);
});

async function send(update: Update): Promise<void> {
  await bot.bot.handleUpdate(update);
  await bot.deps.tasks.drain();
}

interface MiniApp {
  page: Page;
  /** How many times the page asked for telegram-web-app.js. */
  scriptRequests(): number;
}

/** The dashboard as Telegram opens it from the bot's menu button, with this initData. */
async function openMiniApp(initData: string): Promise<MiniApp> {
  const watched = await openDashboard(browser, origin, { phone: true });
  opened.push(watched);
  let requests = 0;
  await watched.context.route('https://telegram.org/js/telegram-web-app.js*', (route) => {
    requests += 1;
    return route.fulfill({ status: 200, contentType: 'text/javascript', body: '' });
  });
  // What Telegram's client provides (core.telegram.org/bots/webapps#initializing-mini-apps); openInvoice keeps
  // the link and the callback for the test to answer as the payment sheet would.
  await watched.page.addInitScript(`(() => {
    window.__invoices = [];
    window.Telegram = { WebApp: {
      initData: ${JSON.stringify(initData)},
      colorScheme: 'light',
      themeParams: ${JSON.stringify(THEME)},
      ready() { window.__ready = true; },
      expand() {},
      onEvent() {},
      openInvoice(url, callback) { window.__invoices.push(url); window.__invoiceCallback = callback; },
    } };
  })()`);
  const launch = new URLSearchParams({ tgWebAppData: initData, tgWebAppVersion: '8.0', tgWebAppPlatform: 'android' });
  await watched.page.goto(`/#${launch.toString()}`);
  return { page: watched.page, scriptRequests: () => requests };
}

/** The invoice link the page handed to `Telegram.WebApp.openInvoice` (polled: the page's CSP forbids eval). */
async function invoiceOpened(page: Page): Promise<string> {
  return eventually(() => page.evaluate<string | undefined>('window.__invoices[0]'), 20_000, 'openInvoice');
}

async function pictureFor(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  if (process.env.DOCS_SCREENSHOTS === '1') await page.screenshot({ path: path.join(DOCS_IMG, `${name}.png`) });
}

async function expectAxeClean(page: Page): Promise<void> {
  expect(await seriousAxeFindings(page)).toEqual([]);
}

const accountOf = (telegramId: number) => api.db.dataSource.getRepository(UserEntity).findOneByOrFail({ telegramId: String(telegramId) });

beforeAll(() => fs.mkdirSync(DOCS_IMG, { recursive: true }));

test('inside Telegram the dashboard signs in on the bot’s account, follows the theme and hides what is Telegram’s', async () => {
  const tgUser = new TestUser(6_300_001, { firstName: 'Nadia' });
  await send(tgUser.text('/start'));
  const app = await openMiniApp(telegram.webAppInitData({ id: tgUser.id, first_name: 'Nadia', username: 'nadia_tg' }));
  const { page } = app;
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  expect(app.scriptRequests()).toBe(1);
  expect(await page.getByTestId('user-name').innerText()).toBe('Nadia');
  // The same account as the bot's: the one tied to the Telegram user id.
  const token = await page.evaluate<string>(
    "fetch('/api/v2/auth/refresh', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then((r) => r.json()).then((b) => b.access_token)",
  );
  const me = await api.request('GET', '/api/v2/user/me', { token });
  expect(me.body.id).toBe((await accountOf(tgUser.id)).id);
  // Telegram's colours, its ready() told, and no sign-out (the account is Telegram's).
  expect(await page.evaluate<string>("getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()")).toBe(THEME.bg_color);
  expect(await page.evaluate<boolean>('window.__ready')).toBe(true);
  expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
  expect(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBe(0);
  await expectAxeClean(page);
  await pictureFor(page, 'miniapp-overview');
});

test('a forged or stale initData is refused with a clear message, and no Telegram widget is offered', async () => {
  const genuine = new URLSearchParams(telegram.webAppInitData({ id: 6_300_010, first_name: 'Mallory' }));
  genuine.set('user', JSON.stringify({ id: 6_300_001, first_name: 'Nadia' }));
  for (const initData of [
    genuine.toString(),
    telegram.webAppInitData({ id: 6_300_011 }, { authDate: Math.floor(Date.now() / 1000) - 90_000 }),
  ]) {
    const { page } = await openMiniApp(initData);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('Telegram could not confirm who you are').waitFor();
    expect(await page.getByRole('button', { name: 'Log in with Telegram' }).count()).toBe(0);
    await expectAxeClean(page);
  }
  expect(await api.db.dataSource.getRepository(UserEntity).countBy({ telegramId: '6300011' })).toBe(0);
});

test('Stars: prices in ⭐, openInvoice with the invoice link, and on "paid" the balance the bot credited', async () => {
  const tgUser = new TestUser(6_300_020, { firstName: 'Buyer' });
  const { page } = await openMiniApp(telegram.webAppInitData({ id: tgUser.id, first_name: 'Buyer' }));
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.locator('nav a[href="/billing"]').click();
  const before = Number((await page.getByTestId('billing-balance').innerText()).replace(/\D/g, ''));
  const article = (await api.request('GET', '/api/v2/payments/articles')).body.articles.find((a: { id: string }) => a.id === 'tokens-100');
  const pay = page.getByRole('button', { name: `Pay ${article.stars} ⭐: ${article.title}` });
  expect(await page.getByTestId('article').filter({ has: pay }).innerText()).toContain(`${article.stars} ⭐`);
  await pictureFor(page, 'miniapp-billing');
  await pay.click();

  const link = await invoiceOpened(page);
  const invoice = telegram.invoiceOfLink(link)!;
  expect(invoice).toMatchObject({ currency: 'XTR', totalAmount: article.stars });
  // The user pays in Telegram's sheet: the bot hears the checkout and the payment, then Telegram answers "paid".
  await send(tgUser.preCheckout(invoice.payload, invoice.totalAmount));
  await send(tgUser.successfulPayment(invoice.payload, invoice.totalAmount, 'stxDashboard1'));
  await page.evaluate("window.__invoiceCallback('paid')");
  await page.getByText('Paid with Stars. Your balance is updated.').waitFor();
  await page
    .getByTestId('billing-balance')
    .filter({ hasText: `${before + 100}` })
    .waitFor();
  await expectAxeClean(page);
});

test('a cancelled Stars payment says nothing was charged', async () => {
  const { page } = await openMiniApp(telegram.webAppInitData({ id: 6_300_021, first_name: 'Undecided' }));
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.goto('/billing');
  await page
    .getByRole('button', { name: /^Pay \d+ ⭐: / })
    .first()
    .click();
  await invoiceOpened(page);
  await page.evaluate("window.__invoiceCallback('cancelled')");
  await page.getByText('The payment was cancelled; nothing was charged.').waitFor();
});

test('Assistants: create, edit and delete; the bot’s /mode lists them', async () => {
  const tgUser = new TestUser(6_300_030, { firstName: 'Author', languageCode: 'en' });
  const { page } = await openMiniApp(telegram.webAppInitData({ id: tgUser.id, first_name: 'Author' }));
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.locator('nav a[href="/assistants"]').click();
  await page.getByTestId('empty-state').waitFor();
  await page.getByRole('button', { name: 'New assistant' }).click();
  await page.getByLabel('Name').fill('Sommelier');
  await page.getByLabel('What it is for').fill('Pairs wine with food');
  await page.getByLabel('Model').selectOption('gpt-6-luna');
  await page.getByLabel('Instructions').fill('You are a sommelier. Answer in two sentences.');
  await expectAxeClean(page);
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByText('Sommelier is ready').waitFor();
  await page.getByTestId('assistant').filter({ hasText: 'Pairs wine with food' }).waitFor();
  await pictureFor(page, 'miniapp-assistants');
  await send(tgUser.text('/mode'));
  expect(telegram.sentTexts(tgUser.id).pop()).toContain('Sommelier — Pairs wine with food');

  await page.getByRole('button', { name: 'Edit: Sommelier' }).click();
  await page.getByLabel('What it is for').fill('Wine and cheese');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByTestId('assistant').filter({ hasText: 'Wine and cheese' }).waitFor();
  await page.getByRole('button', { name: 'Delete: Sommelier' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('empty-state').waitFor();
  expect(await page.getByTestId('assistant').count()).toBe(0);
  await expectAxeClean(page);
});

test('the referral card: the bot’s invitation link, copied, and who joined through it', async () => {
  const { page } = await openMiniApp(telegram.webAppInitData({ id: 6_300_040, first_name: 'Inviter' }));
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.goto('/account');
  const card = page.getByTestId('referral-card');
  const link = card.getByLabel('Your invitation link');
  await link.and(page.locator('[value^="https://t.me/"]')).waitFor();
  const url = await link.inputValue();
  expect(url).toMatch(new RegExp(`^https://t\\.me/${BOT_USER.username}\\?start=ref_\\w+$`));
  expect(await card.getByTestId('referral-invited').innerText()).toBe('0');
  await card.getByRole('button', { name: 'Copy link' }).click();
  await card.getByText('The link is copied.').waitFor();
  expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(url);

  // A friend opens the Mini App through the link's startapp parameter: the card counts them.
  const code = /ref_(\w+)$/.exec(url)![1];
  const friend = await api.request('POST', '/api/v2/auth/telegram-webapp', {
    body: { init_data: telegram.webAppInitData({ id: 6_300_041, first_name: 'Friend' }, { startParam: `ref_${code}` }) },
  });
  expect(friend.status).toBe(200);
  await page.reload();
  await card.getByTestId('referral-invited').filter({ hasText: '1' }).waitFor();
  expect(await card.getByTestId('referral-earned').innerText()).toBe('0 tkn');
  await expectAxeClean(page);
  await pictureFor(page, 'miniapp-referral');
});
