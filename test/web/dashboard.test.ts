/**
 * The web dashboard in real headless Chromium (Debian's chromium through playwright-core) against the real service
 * (in process, real PostgreSQL, sandbox vendors). One browser for the file; each test has its own profile.
 */
import type { Browser, Page } from 'playwright-core';
import { ApiHarness, BOT_TOKEN, insertGeneration, startApi } from '../api/harness';
import { startWorkers } from '../../src/jobs/workers';
import { ensureWebBuild, launchBrowser, openDashboard, screenshot, type WatchedPage } from './support/browser';
import { signWidgetData, startWidgetStandIn, type WidgetStandIn } from './support/telegram-stand-in';
import { eventually as polled } from '../support/wait';

jest.setTimeout(90_000);

let api: ApiHarness;
let widget: WidgetStandIn;
let browser: Browser;
let origin: string;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  ensureWebBuild();
  widget = await startWidgetStandIn();
  process.env.SANDBOX_CHUNK_DELAY_MS = '30';
  api = await startApi({ TELEGRAM_WIDGET_SCRIPT_URL: widget.scriptUrl });
  // localhost (not 127.0.0.1): browsers keep the Secure refresh cookie on http://localhost.
  // Job workers too, so pending video and music generations finish.
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
  origin = api.baseUrl.replace('127.0.0.1', 'localhost');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await widget?.close();
  await api?.close();
});

afterEach(async () => {
  // No console errors, page errors or CSP violations on any page a test visited.
  const errors = opened.flatMap((w) => w.errors);
  await Promise.all(opened.splice(0).map((w) => w.context.close()));
  expect(errors).toEqual([]);
});

async function open(options: { phone?: boolean } = {}): Promise<Page> {
  const watched = await openDashboard(browser, origin, options);
  opened.push(watched);
  return watched.page;
}

/** A month of varied past generations, so the usage chart has something to draw. */
async function seedUsage(userId: number): Promise<void> {
  const kinds = [
    { category: 'text', modelSlug: 'gpt-6-luna', tokensSpent: 2 },
    { category: 'image', modelSlug: 'flux-dev', tokensSpent: 6 },
    { category: 'tts', modelSlug: 'gemini-3.8-flash-lite-tts', tokensSpent: 3 },
    { category: 'video', modelSlug: 'gemini-omni-1.1-flash', tokensSpent: 20 },
  ];
  for (let day = 0; day < 30; day += 1 + (day % 3)) {
    for (const [i, kind] of kinds.entries()) {
      if ((day + i) % 3 === 0) continue;
      await insertGeneration(api.services.ds, userId, {
        ...kind,
        tokensSpent: kind.tokensSpent * (1 + (day % 4)),
        createdAt: new Date(Date.now() - day * 86_400_000),
      });
    }
  }
}

/** The value of `read` once `done` accepts it, or the last one read after a few seconds (the expectations say why). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const accepted = await polled(async () => {
    const value = await read();
    return done(value) ? { value } : undefined;
  }, timeoutMs).catch(() => undefined);
  return accepted ? accepted.value : read();
}

async function signIn(page: Page, identifier: string, password: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Email or phone').fill(identifier);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('static serving', () => {
  test('hashed assets are cached for a year (immutable), index.html is not, client routes fall back, the API is not shadowed', async () => {
    const index = await fetch(`${origin}/`, { headers: { Accept: 'text/html' } });
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await index.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    expect(html).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>|style="/);

    const js = await fetch(`${origin}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('max-age=31536000,immutable');
    expect(js.headers.get('content-type')).toMatch(/javascript/);

    const client = await fetch(`${origin}/keys`, { headers: { Accept: 'text/html' } });
    expect(client.status).toBe(200);
    expect(await client.text()).toBe(html);

    for (const path of ['/api/v2/nope', '/v1/nope', '/files/nope.png', '/health/nope', '/metrics/x', '/telegram/x']) {
      const res = await fetch(`${origin}${path}`, { headers: { Accept: 'text/html' } });
      expect([res.status, res.headers.get('content-type')]).toEqual([404, expect.stringMatching(/json/)]);
    }
    const missing = await fetch(`${origin}/assets/missing-123.js`);
    expect(missing.status).toBe(404);
    expect((await fetch(`${origin}/health`)).status).toBe(200);
  });
});

describe('sign-in', () => {
  test('email sign-in through the one field; the balance shown equals the API’s; reload keeps the session; sign-out ends it', async () => {
    const account = await api.account('pro', { planTokens: 1234, bonusTokens: 56, name: 'Olga' });
    await seedUsage(account.user.id);
    const page = await open();
    await signIn(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    const token = await api.accessToken(account);
    const balance = (await api.request('GET', '/api/v2/user/balance', { token })).body;
    await page.getByTestId('token-balance').filter({ hasText: /\d/ }).waitFor();
    const shown = (s: string) => Number(s.replace(/[^\d]/g, ''));
    expect(shown(await page.getByTestId('token-balance').innerText())).toBe(balance.token_balance);
    expect(shown(await page.getByTestId('plan-tokens').innerText())).toBe(balance.plan_tokens_remaining);
    expect(shown(await page.getByTestId('bonus-tokens').innerText())).toBe(balance.bonus_tokens);
    expect(balance.token_balance).toBe(1290);
    expect(await page.getByTestId('plan').innerText()).toBe('Pro');
    expect(await page.getByTestId('limit-hour').innerText()).toMatch(/60 of 60 left/);
    await page.getByRole('heading', { name: 'Spent (tkn)' }).waitFor();
    await page.getByText(/^\d[\d,]* tkn in \d+ generations/).waitFor();
    await screenshot(page, 'overview');

    // No token in web storage: the access token is in memory only.
    const stored = await page.evaluate<string>(
      'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie',
    );
    expect(stored).not.toMatch(/eyJ|nb_refresh/);

    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.getByTestId('user-name').innerText()).toBe('Olga');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto('/keys');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(page.url()).toContain('/sign-in?next=%2Fkeys');
  });

  test('phone sign-in through the same field, typed with spaces and dashes', async () => {
    const account = await api.account('free', { phone: '+79991234567', name: 'Pavel' });
    const page = await open({ phone: true });
    await page.goto('/sign-in');
    await screenshot(page, 'sign-in-phone-width');
    await signIn(page, '+7 999 123-45-67', account.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.getByTestId('user-name').innerText()).toBe('Pavel');
    await screenshot(page, 'overview-phone-width');
  });

  test('sign-in works from the keyboard alone', async () => {
    const account = await api.account('free', { name: 'Kira' });
    const page = await open();
    await page.goto('/sign-in');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('identifier');
    await page.keyboard.type(account.email);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('password');
    await page.keyboard.type(account.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
  });

  test('a wrong password is said in words', async () => {
    const account = await api.account('free');
    const page = await open();
    await signIn(page, account.email, 'not-the-password');
    await page.getByRole('alert').filter({ hasText: 'Wrong email, phone or password.' }).waitFor();
    await signIn(page, 'not an email', 'x');
    await page.getByRole('alert').filter({ hasText: 'Enter an email address or a phone number' }).waitFor();
    await screenshot(page, 'sign-in-wrong-password');
  });

  test('an account locked after repeated wrong passwords says for how many minutes', async () => {
    const account = await api.account('free');
    // Ten failures from ten addresses: the per-account lock, not the per-address limit.
    for (let i = 0; i < 10; i++) {
      const res = await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: `wrong-${i}` } });
      expect(res.status).toBe(401);
    }
    const page = await open();
    await signIn(page, account.email, account.password);
    await page
      .getByRole('alert')
      .filter({ hasText: /password sign-in for this account is locked for 1[45] minutes\./ })
      .waitFor();
    await screenshot(page, 'sign-in-locked');
  });

  test('register in the browser, then the verification link from the mail lands on a verified page', async () => {
    const page = await open();
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Name').fill('Vera');
    const email = `vera-${Date.now()}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password (at least 8 characters)').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.getByTestId('user-name').innerText()).toBe('Vera');

    const mail = await eventually(
      async () => api.mails.find((m) => m.to === email),
      (m) => m !== undefined,
    );
    const token = /verify-email\?token=([^\s&"]+)/.exec(mail?.text ?? '')?.[1];
    expect(token).toBeDefined();
    await page.goto(`/verify-email?token=${token}`);
    await page.getByText('Your email address is verified.').waitFor();
    await screenshot(page, 'verify-email');
    await page.goto(`/verify-email?token=${token}`);
    await page.getByText('This verification link is used, expired or wrong.').waitFor();
  });

  test('forgot and reset password through the mailed link', async () => {
    const account = await api.account('free');
    const page = await open();
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(account.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('a link to reset the password has been sent').waitFor();
    const mail = await eventually(
      async () => api.mails.find((m) => m.to === account.email),
      (m) => m !== undefined,
    );
    const token = /reset-password\?token=([^\s&"]+)/.exec(mail?.text ?? '')?.[1];
    expect(token).toBeDefined();
    await page.goto(`/reset-password?token=${token}`);
    await page.getByLabel('New password (at least 8 characters)').fill('a brand new password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Password changed. Sign in with the new password.').waitFor();
    await signIn(page, account.email, 'a brand new password');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  test('Log in with Telegram: the widget’s signed data is posted to /auth/messenger', async () => {
    widget.answerWith(
      signWidgetData({ id: 777001, first_name: 'Tanya', username: 'tanya_t', auth_date: Math.floor(Date.now() / 1000) }, BOT_TOKEN),
    );
    const page = await open();
    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'Log in with Telegram' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.getByTestId('user-name').innerText()).toBe('Tanya');
    const calls = await page.evaluate<unknown[]>('window.__telegramAuthCalls');
    expect(calls).toEqual([expect.objectContaining({ bot_id: Number(BOT_TOKEN.split(':')[0]) })]);
  });

  test('Telegram data with a forged signature is refused', async () => {
    widget.answerWith({
      ...signWidgetData({ id: 777002, first_name: 'Mallory', auth_date: Math.floor(Date.now() / 1000) }, BOT_TOKEN),
      first_name: 'Eve',
    });
    const page = await open();
    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'Log in with Telegram' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email, phone or password.' }).waitFor();
  });
});

describe('API keys', () => {
  test('created, shown once, masked after a reload, works on the API, renamed, deleted and refused at once', async () => {
    const account = await api.account('vip');
    const page = await open();
    await signIn(page, account.email, account.password);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.getByText('API keys work on the VIP plan or higher').count()).toBe(0);

    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('CI runner');
    await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
    const fullKey = (await page.getByTestId('new-key').innerText()).trim();
    expect(fullKey).toMatch(/^nb_[A-Za-z0-9]{45}$/);
    await page.getByText('this is the only time the full key is shown').waitFor();
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(fullKey);

    // It works on the API (and shows up as used).
    expect((await api.request('GET', '/api/v2/user/me', { token: fullKey })).status).toBe(200);

    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const row = page.getByTestId('key-row').filter({ hasText: 'CI runner' });
    await row.waitFor();
    expect(await page.content()).not.toContain(fullKey);
    const masked = await row.getByTestId('masked-key').innerText();
    expect(masked.startsWith(fullKey.slice(0, 7))).toBe(true);
    expect(masked.endsWith(fullKey.slice(-4))).toBe(true);
    await expect(row.getByTestId('last-used').innerText()).resolves.not.toBe('Never');
    await screenshot(page, 'api-keys');

    await row.getByRole('button', { name: 'Edit: CI runner' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Deploy bot');
    await page.keyboard.press('Enter');
    await page.getByTestId('key-name').filter({ hasText: 'Deploy bot' }).waitFor();
    const token = await api.accessToken(account);
    expect((await api.request('GET', '/api/v2/keys', { token })).body.keys.map((k: { name: string }) => k.name)).toEqual(['Deploy bot']);

    await page.getByRole('button', { name: 'Delete: Deploy bot' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Delete the key “Deploy bot”?').waitFor();
    await screenshot(page, 'api-keys-delete-confirm');
    await dialog.getByRole('button', { name: 'Delete key' }).click();
    await page.getByText('No API keys yet.').waitFor();
    expect((await api.request('GET', '/api/v2/user/me', { token: fullKey })).status).toBe(401);
  });

  test('a plan below VIP is told plainly that keys need VIP', async () => {
    const account = await api.account('basic');
    const page = await open();
    await signIn(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto('/keys');
    await page.getByText('API keys work on the VIP plan or higher. Your plan is Basic').waitFor();
  });
});

describe('playground, history, billing, settings', () => {
  test('a chat streams in; an image shows its price first, then the picture; history shows both; locked models name their plan', async () => {
    const account = await api.account('pro', { planTokens: 500 });
    const page = await open();
    await signIn(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'Playground', exact: true }).click();
    await page.getByRole('heading', { name: 'Playground' }).waitFor();

    // Chat: the answer grows on the page while the events arrive.
    await page.getByLabel('Model', { exact: true }).selectOption('gpt-6-luna');
    await page.evaluate(`(() => {
      window.__chatStates = [];
      new MutationObserver(() => {
        const items = document.querySelectorAll('[data-testid="chat-assistant"]');
        const last = items[items.length - 1];
        if (last && !window.__chatStates.includes(last.textContent)) window.__chatStates.push(last.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    const streamed = page.waitForResponse((r) => r.url().endsWith('/v1/chat/completions'));
    await page.getByLabel('Message').fill('Tell me about tides in a few words');
    await page.keyboard.press('Enter');
    expect((await streamed).headers()['content-type']).toMatch(/^text\/event-stream/);
    await page.getByText(/^Done: \d+ tkn spent \(\d+ model tokens? in, \d+ model tokens? out\)\.$/).waitFor();
    const answer = (await page.getByTestId('chat-assistant').innerText()).replace(/^Assistant\s*/, '');
    expect(answer.length).toBeGreaterThan(10);
    const states = await page.evaluate<string[]>('window.__chatStates');
    expect(states.length).toBeGreaterThan(2);
    await screenshot(page, 'playground-chat');

    // Image: size and format, the price shown (and equal to calculate-price) before anything is generated.
    await page.getByRole('tab', { name: 'Image' }).click();
    await page.getByLabel('Model', { exact: true }).selectOption('flux-dev');
    await page.getByLabel('Prompt').fill('a lighthouse at dusk');
    await page.getByLabel('Size').selectOption('768x1344');
    await page.getByLabel('Format').selectOption('png');
    const token = await api.accessToken(account);
    const before = (await api.request('GET', '/api/v2/user/history?category=image', { token })).body.items.length;
    await page.getByRole('button', { name: 'Check price' }).click();
    const quote = await api.request('POST', '/api/v2/models/flux-dev/calculate-price', {
      token,
      body: { prompt: 'a lighthouse at dusk', size: '768x1344', format: 'png' },
    });
    expect(quote.status).toBe(200);
    await page
      .getByTestId('price')
      .filter({ hasText: `This costs ${quote.body.tokens} tkn.` })
      .waitFor();
    expect((await api.request('GET', '/api/v2/user/history?category=image', { token })).body.items.length).toBe(before);
    await page.getByRole('button', { name: `Generate for ${quote.body.tokens} tkn` }).click();
    const image = page.getByTestId('result-image');
    await image.waitFor();
    expect(
      await eventually(
        () => image.evaluate((img: { complete: boolean; naturalWidth: number }) => (img.complete ? img.naturalWidth : 0)),
        (w) => w > 0,
      ),
    ).toBe(768);
    await screenshot(page, 'playground-image');

    // History: the text and the image.
    await page.getByRole('link', { name: 'History', exact: true }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.getByTestId('result-image').waitFor();
    await page.getByTestId('result-text').first().waitFor();
    expect(await page.getByTestId('history-item').count()).toBe(2);
    await page.getByLabel('Category').selectOption('image');
    expect(
      await eventually(
        () => page.getByTestId('history-item').count(),
        (n) => n === 1,
      ),
    ).toBe(1);
    await screenshot(page, 'history');
  });

  test('a pending music generation is polled and played when ready', async () => {
    const account = await api.account('basic', { planTokens: 500 });
    const page = await open();
    await signIn(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto('/playground');
    await page.getByRole('tab', { name: 'Video and music' }).click();
    await page.getByLabel('Model', { exact: true }).selectOption('musicgen');
    await page.getByLabel('Prompt').fill('calm piano');
    await page.getByLabel('Duration (seconds)').fill('20');
    await page.getByRole('button', { name: 'Check price' }).click();
    const price = await page.getByTestId('price').innerText();
    const tokens = Number(/(\d+) tkn/.exec(price)?.[1]);
    await page.getByRole('button', { name: `Generate for ${tokens} tkn` }).click();
    await page.getByText(/^Queued: about \d+ s\./).waitFor();
    await page.getByTestId('result-audio').waitFor({ timeout: 45_000 });
    await page.getByText(/^Done: \d+ tkn spent\.$/).waitFor();
    await screenshot(page, 'playground-music');
  });

  test('a Starter account sees locked models with the plan they need', async () => {
    const account = await api.account('free');
    const page = await open();
    await signIn(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto('/playground');
    const locked = page.locator('#chat-model option[disabled]');
    await locked.first().waitFor({ state: 'attached' });
    expect(await locked.first().innerText()).toMatch(/ — needs Basic$/);
    expect(await page.locator('#chat-model option:not([disabled])').count()).toBeGreaterThan(0);
  });

  test('settings change the language (the account’s setting, kept after a reload), the name, and the image format', async () => {
    const account = await api.account('basic', { name: 'Ivan' });
    const page = await open({ phone: true });
    await signIn(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto('/settings');
    await page.getByLabel('Language').selectOption('ru');
    await page.getByRole('heading', { name: 'Настройки' }).waitFor();
    await page.getByLabel('Формат изображений').selectOption('png');
    await page.getByText('Сохранено.').waitFor();
    await page.getByLabel('Имя').fill('Иван');
    await page.getByRole('button', { name: 'Сохранить' }).click();
    await page.getByTestId('user-name').filter({ hasText: 'Иван' }).waitFor();
    const token = await api.accessToken(account);
    expect((await api.request('GET', '/api/v2/user/settings', { token })).body).toMatchObject({ language: 'ru', image_format: 'png' });
    expect((await api.request('GET', '/api/v2/user/me', { token })).body.name).toBe('Иван');
    await screenshot(page, 'settings-ru');

    await page.reload();
    await page.getByRole('button', { name: 'Меню' }).click();
    await page.getByRole('link', { name: 'Обзор' }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('ru');
  });

  test('webhooks: an endpoint is added with its secret shown once, listed, and deleted', async () => {
    const account = await api.account('vip');
    const page = await open();
    await signIn(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByText('No endpoints yet.').waitFor();
    await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/nebula');
    // Event types are chosen per endpoint: only payments here.
    for (const event of ['generation.completed', 'generation.failed', 'balance.low']) await page.getByLabel(event).uncheck();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByTestId('webhook-secret').innerText();
    expect(secret).toMatch(/^whsec_/);
    await page.getByTestId('webhook').filter({ hasText: 'https://hooks.example.com/nebula' }).waitFor();
    const token = await api.accessToken(account);
    const listed = (await api.request('GET', '/api/v2/webhooks', { token })).body.webhooks as { events: string[] }[];
    expect(listed[0]!.events).toEqual(['payment.succeeded', 'payment.refunded']);
    await page.getByTestId('webhook').filter({ hasText: 'payment.succeeded, payment.refunded' }).waitFor();
    await screenshot(page, 'webhooks');
    await page.reload();
    await page.getByTestId('webhook').waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No endpoints yet.').waitFor();
  });

  test('billing lists the articles, buys through the carrier checkout and lists the order', async () => {
    const account = await api.account('free');
    const page = await open();
    await signIn(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto('/billing');
    await page.getByRole('heading', { name: 'Billing' }).waitFor();
    const all = (await api.request('GET', '/api/v2/payments/articles')).body.articles as { title: string; kind: string }[];
    // Token packages are listed as cards; plans are bought from the comparison of plans.
    const articles = all.filter((a) => a.kind === 'tokens');
    await page
      .getByTestId('article')
      .nth(articles.length - 1)
      .waitFor();
    expect(await page.getByTestId('article').count()).toBe(articles.length);
    expect(await page.getByTestId('plan-column').count()).toBe(5);
    await page.getByText('No orders yet.').waitFor();
    await screenshot(page, 'billing');

    await page.getByRole('button', { name: `Buy: ${articles[0]!.title}` }).click();
    await page.getByRole('heading', { name: 'YooKassa sandbox' }).waitFor();
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.getByRole('heading', { name: 'Billing' }).waitFor();
    // Back from the checkout: a message on landing (confirming, then received once the order is credited), the
    // order's status in words, and the balance.
    await page
      .getByRole('status')
      .filter({ hasText: /^(Thank you! Your payment is being confirmed|Payment received, thank you: .+ added to your account\.$)/ })
      .first()
      .waitFor();
    const token = await api.accessToken(account);
    const orders = (await api.request('GET', '/api/v2/payments/orders', { token })).body.orders;
    expect(orders).toHaveLength(1);
    const words: Record<string, string> = { pending: 'Awaiting payment', paid: 'Paid', fulfilled: 'Completed' };
    await page
      .getByTestId('order-status')
      .filter({ hasText: words[orders[0].status] ?? '' })
      .waitFor();
    expect(await page.getByTestId('order-status').innerText()).not.toMatch(/_|fulfilled/);
    const balance = (await api.request('GET', '/api/v2/user/balance', { token })).body.token_balance as number;
    await page
      .getByTestId('billing-balance')
      .filter({ hasText: `${balance.toLocaleString('en-GB')} tkn` })
      .waitFor();
  });
});
