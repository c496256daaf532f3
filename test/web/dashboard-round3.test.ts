/**
 * The dashboard of issue 41 in real headless Chromium against the real service: tkn and model tokens, prices per
 * request and per million model tokens, history and request-log entries opened, downloaded and deleted, refused
 * calls, the plans compared, the playground's layout, keys on a phone, the VIP hint, empty states, and axe on every
 * page at 1280 and 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { ApiHarness, avoidWindowEdge, insertGeneration, startApi, TestAccount } from '../api/harness';
import { seriousAxeFindings } from './support/axe';
import { ensureWebBuild, launchBrowser, openDashboard, screenshot, type WatchedPage } from './support/browser';

jest.setTimeout(120_000);

let api: ApiHarness;
let browser: Browser;
let origin: string;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  ensureWebBuild();
  api = await startApi();
  await api.services.payments.connectSandboxNotifications(`${api.baseUrl}/api/v2/payments/carrier/notifications`);
  origin = api.baseUrl.replace('127.0.0.1', 'localhost');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
});

afterEach(async () => {
  const errors = opened.flatMap((w) => w.errors);
  await Promise.all(opened.splice(0).map((w) => w.context.close()));
  expect(errors).toEqual([]);
});

/** A POST to the API at the address the dashboard uses (its links then share the page's origin). */
async function atDashboard(
  token: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: { id: number; result_url: string } }> {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { id: number; result_url: string } };
}

async function signedIn(account: TestAccount, options: { phone?: boolean } = {}): Promise<Page> {
  const watched = await openDashboard(browser, origin, options);
  opened.push(watched);
  const page = watched.page;
  if (options.phone) await page.setViewportSize({ width: 375, height: 800 });
  await page.goto('/sign-in');
  await page.getByLabel('Email or phone').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

/** The element's box, scrolled nowhere: where it is on the first screen. */
async function box(page: Page, selector: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await page.locator(selector).boundingBox();
  if (!b) throw new Error(`${selector} has no box`);
  return b;
}

describe('tkn and model tokens', () => {
  test('the balance is in tkn, a chat reports tkn and model tokens, the Models page prices per request and per million', async () => {
    const account = await api.account('pro', { planTokens: 500, bonusTokens: 0 });
    const page = await signedIn(account);
    await page.getByTestId('token-balance').filter({ hasText: '500 tkn' }).waitFor();
    await page.getByTestId('next-refill').waitFor();

    await page.goto('/playground');
    await page.getByLabel('Model', { exact: true }).selectOption('gpt-6-luna');
    await page.getByLabel('Message').fill('Tell me about tides');
    await page.keyboard.press('Enter');
    const done = page.getByRole('status').filter({ hasText: /^Done: / });
    await done.waitFor();
    const [, spent, input, output] = /^Done: (\d+) tkn spent \((\d+) model tokens? in, (\d+) model tokens? out\)\.$/.exec(
      await done.innerText(),
    )!;
    const token = await api.accessToken(account);
    const [entry] = (await api.request('GET', '/api/v2/user/history?limit=1', { token })).body.items;
    expect([Number(spent), Number(input), Number(output)]).toEqual([
      entry.tokens_spent,
      entry.usage.input_tokens,
      entry.usage.output_tokens,
    ]);

    const catalog = (await api.request('GET', '/api/v2/models', { token })).body.models as {
      slug: string;
      price_per_million_tokens?: { input: number; output: number };
      config: { max_context?: number };
    }[];
    const luna = catalog.find((m) => m.slug === 'gpt-6-luna')!;
    await page.goto('/models');
    const row = page.locator('[data-slug="gpt-6-luna"]');
    const fmt = (n: number) => n.toLocaleString('en-GB', { maximumFractionDigits: 2 });
    await row
      .getByTestId('price-per-million')
      .filter({ hasText: `${fmt(luna.price_per_million_tokens!.input)} in · ${fmt(luna.price_per_million_tokens!.output)} out` })
      .waitFor();
    expect(await row.innerText()).toContain('tkn per 1M model tokens');
    expect(await row.getByTestId('context').innerText()).toMatch(/^[\d.]+[KM] model tokens$/);
    expect(await page.locator('[data-slug="flux-dev"]').getByTestId('price-per-request').innerText()).toMatch(/^\d+ tkn per request$/);
    expect(await page.locator('[data-slug="flux-dev"]').getByTestId('context').innerText()).toBe('—');
    // "Tokens" alone is nowhere: either tkn (ours) or model tokens (the model's).
    expect(await page.locator('main').innerText()).not.toMatch(/\btokens\b(?<!model tokens)/i);
    await screenshot(page, 'models');
  });
});

describe('history and the request log', () => {
  test('an entry opens with prompt, Markdown output, tokens in/out/cached, cost and latency; downloads; deletes', async () => {
    const account = await api.account('pro', { planTokens: 500 });
    const token = await api.accessToken(account);
    const chat = await api.request('POST', '/v1/chat/completions', {
      token,
      body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: '**bold** answer please' }] },
    });
    expect(chat.status).toBe(200);
    // Made at the dashboard's address, so its link is on the page's origin (as for a user of the dashboard).
    const image = await atDashboard(token, '/api/v2/generate', { model: 'flux-dev', prompt: 'a lighthouse at dusk' });
    const [chatEntry] = (await api.request('GET', '/api/v2/user/history?category=text', { token })).body.items;
    const page = await signedIn(account);
    await page.goto('/history');
    await page.getByTestId('history-item').nth(1).waitFor();

    await page.getByRole('button', { name: `Details: gpt-6-luna #${chatEntry.id}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('entry-prompt').filter({ hasText: '**bold** answer please' }).waitFor();
    // The sandbox echoes the question: its Markdown is rendered, not shown raw.
    expect(await dialog.getByTestId('result-text').locator('strong').first().innerText()).toBe('bold');
    expect(await dialog.getByTestId('entry-model-tokens').innerText()).toBe(
      `${chatEntry.usage.input_tokens} in · ${chatEntry.usage.output_tokens} out · ${chatEntry.usage.cached_tokens} cached`,
    );
    expect(await dialog.getByTestId('entry-cost').innerText()).toBe(`${chatEntry.tokens_spent} tkn`);
    expect(await dialog.getByTestId('entry-latency').innerText()).toMatch(/^\d[\d,]* ms$/);
    const text = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Download' }).click();
    expect((await text).suggestedFilename()).toBe(`gpt-6-luna-${chatEntry.id}.md`);
    await screenshot(page, 'history-details');
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: `Details: flux-dev #${image.body.id}` }).click();
    const file = page.waitForEvent('download');
    await dialog.getByRole('link', { name: 'Download' }).click();
    expect((await file).suggestedFilename()).toMatch(new RegExp(`^flux-dev-${image.body.id}\\.(webp|png|jpeg)$`));
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete result' }).click();
    await page.getByRole('status').filter({ hasText: 'Result deleted.' }).waitFor();
    expect(await page.getByTestId('history-item').count()).toBe(1);
    expect((await fetch(image.body.result_url)).status).toBe(410);
    await page.reload();
    await page.getByTestId('history-item').first().waitFor();
    expect(await page.getByTestId('history-item').count()).toBe(1);
  });

  test('the request log opens each request (a failed one with its error) and lists the refused calls', async () => {
    await avoidWindowEdge(3600);
    const account = await api.account('vip', { planTokens: 0, bonusTokens: 0 });
    const token = await api.accessToken(account);
    const failed = await insertGeneration(api.services.ds, account.user.id, {
      status: 'failed',
      error: 'The model flux-dev is overloaded',
      prompt: 'a red fox',
      processingMs: 812,
    });
    const scoped = await api.services.apiKeys.create(account.user.id, 'scoped', undefined, { models: ['gpt-6-luna'] });
    const ask = (auth: string, model: string) =>
      api.request('POST', '/v1/chat/completions', { token: auth, body: { model, messages: [{ role: 'user', content: 'hi' }] } });
    expect((await ask(token, 'gpt-6-luna')).status).toBe(402);
    expect((await ask(scoped.key, 'claude-haiku-4-5')).status).toBe(403);
    const plan = await api.services.plans.get('vip');
    for (let i = 0; i < plan.rateLimitHourly; i++) await api.services.limiter.consume(account.user.id, plan);
    expect((await ask(token, 'gpt-6-luna')).status).toBe(429);
    await api.services.refusals.flush();

    const page = await signedIn(account);
    await page.goto('/usage');
    await page.getByRole('button', { name: `Details of request #${failed.id}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('entry-error').filter({ hasText: 'The model flux-dev is overloaded' }).waitFor();
    expect(await dialog.getByTestId('entry-prompt').innerText()).toBe('a red fox');
    expect(await dialog.getByTestId('entry-latency').innerText()).toBe('812 ms');
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('tab', { name: 'Refused calls' }).click();
    await page.getByTestId('refusal-row').nth(2).waitFor();
    const rows = await page
      .getByTestId('refusal-row')
      .evaluateAll((trs: { getAttribute(n: string): string | null }[]) => trs.map((tr) => tr.getAttribute('data-status')));
    expect(rows).toEqual(['429', '403', '402']);
    const keyRow = page.getByTestId('refusal-row').filter({ hasText: 'model_not_allowed' });
    expect(await keyRow.innerText()).toMatch(/API\s+scoped\s+POST \/v1\/chat\/completions\s+claude-haiku-4-5\s+403/);
    await page.getByLabel('Reason').selectOption('402');
    await page.getByTestId('refusal-row').filter({ hasText: 'insufficient_tokens' }).waitFor();
    await screenshot(page, 'request-log-refused');
  });
});

describe('billing', () => {
  test('the plans are compared with the current one marked and the renewal terms; a plan is bought on the sandbox page served here', async () => {
    const account = await api.account('free');
    const page = await signedIn(account);
    // Starter has no monthly refill: the overview says so instead of a date.
    await page.getByTestId('no-refill').waitFor();
    expect(await page.getByTestId('next-refill').count()).toBe(0);

    await page.goto('/billing');
    await page.getByTestId('current-plan').waitFor();
    const current = await page.locator('th[data-testid="plan-column"]:has([data-testid="current-plan"])').getAttribute('data-plan');
    expect(current).toBe('free');
    const plans = (await api.request('GET', '/api/v2/plans')).body.plans as { slug: string; models: number }[];
    expect(
      await page
        .getByTestId('plan-column')
        .evaluateAll((ths: { getAttribute(n: string): string | null }[]) => ths.map((th) => th.getAttribute('data-plan'))),
    ).toEqual(plans.map((p) => p.slug));
    const table = await page.locator('table.plans').innerText();
    for (const row of ['tkn every 30 days', 'Requests per hour', 'Models', 'API keys', 'Files kept']) expect(table).toContain(row);
    expect(await page.getByTestId('renewal-terms').innerText()).toMatch(/does not renew by itself.*returns to Starter/);
    await screenshot(page, 'billing');

    const articles = (await api.request('GET', '/api/v2/payments/articles')).body.articles as { title: string; plan: string | null }[];
    const pro = articles.find((a) => a.plan === 'pro')!;
    await page.getByRole('button', { name: `Buy: ${pro.title}` }).click();
    await page.getByRole('heading', { name: 'YooKassa sandbox' }).waitFor();
    // The checkout page is served by the service, at the address the dashboard was opened with.
    expect(page.url()).toMatch(new RegExp(`^${origin}/sandbox/yookassa/checkout/[A-Za-z0-9-]+$`));
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.getByRole('heading', { name: 'Billing' }).waitFor();
    await page
      .locator('th[data-plan="pro"] [data-testid="current-plan"]')
      .waitFor({ timeout: 30_000 })
      .catch(async () => {
        await page.reload();
        await page.locator('th[data-plan="pro"] [data-testid="current-plan"]').waitFor();
      });
  });
});

describe('playground layout', () => {
  const longConversation = (userId: number) => {
    const turns = Array.from({ length: 16 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `Message number ${i + 1}. `.repeat(12),
    }));
    const conversation = {
      id: 'c1',
      title: 'A long one',
      model: 'gpt-6-luna',
      system: '',
      temperature: null,
      maxTokens: null,
      turns,
      updatedAt: new Date().toISOString(),
    };
    return `localStorage.setItem('nb_playground_${userId}', ${JSON.stringify(JSON.stringify([conversation]))})`;
  };

  test('at 1280 px: the conversation first, the settings beside it, the message box on the first screen', async () => {
    const account = await api.account('pro', { planTokens: 500 });
    const page = await signedIn(account);
    await page.evaluate(longConversation(account.user.id));
    await page.goto('/playground');
    await page.getByTestId('chat-assistant').first().waitFor();
    // In the page's order the conversation and its message box come before the settings.
    const order = await page.evaluate<string[]>(
      `[...document.querySelectorAll('#chat-input, #chat-model, [data-testid="conversations"]')].map((e) => e.id || e.dataset.testid)`,
    );
    expect(order).toEqual(['chat-input', 'chat-model', 'conversations']);
    const input = await box(page, '#chat-input');
    const settings = await box(page, '.chat-settings');
    expect(settings.x).toBeGreaterThanOrEqual(input.x + input.width);
    expect(settings.y).toBeLessThan(input.y);
    expect(input.y + input.height).toBeLessThanOrEqual(860);
    await screenshot(page, 'playground');
  });

  test('at 375 px: the conversation and its message box first, the settings below, the box on the first screen', async () => {
    const account = await api.account('pro', { planTokens: 500 });
    const page = await signedIn(account, { phone: true });
    await page.evaluate(longConversation(account.user.id));
    await page.goto('/playground');
    await page.getByTestId('chat-assistant').first().waitFor();
    const input = await box(page, '#chat-input');
    const settings = await box(page, '.chat-settings');
    expect(settings.y).toBeGreaterThan(input.y);
    expect(input.y).toBeGreaterThan(0);
    expect(input.y + input.height).toBeLessThanOrEqual(800);
    // Scrolled through the conversation, the box is still in sight.
    await page.getByTestId('chat-user').nth(3).scrollIntoViewIfNeeded();
    const after = await box(page, '#chat-input');
    expect(after.y + after.height).toBeLessThanOrEqual(800);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBe(0);
    await screenshot(page, 'playground-phone-width');
  });
});

describe('API keys', () => {
  test('at 375 px Edit and Delete are on screen and work; the list shows a loading state while it is read', async () => {
    const account = await api.account('vip');
    await api.services.apiKeys.create(account.user.id, 'phone key with a rather long name');
    const page = await signedIn(account, { phone: true });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v2/keys', async (route) => {
      await held;
      await route.continue().catch(() => undefined);
    });
    await page.goto('/keys');
    await page.getByTestId('keys-loading').filter({ hasText: 'Loading your keys…' }).waitFor();
    release();
    await page.unroute('**/api/v2/keys');
    const row = page.getByTestId('key-row').first();
    await row.waitFor();
    await page.getByTestId('keys-loading').waitFor({ state: 'detached' });
    for (const name of ['Edit: phone key with a rather long name', 'Delete: phone key with a rather long name']) {
      const b = (await row.getByRole('button', { name }).boundingBox())!;
      expect(b.x).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width).toBeLessThanOrEqual(375);
    }
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBe(0);
    await screenshot(page, 'api-keys-phone-width');
    await row.getByRole('button', { name: 'Edit: phone key with a rather long name' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('renamed');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('key-name').filter({ hasText: 'renamed' }).waitFor();
    await page.getByRole('button', { name: 'Delete: renamed' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
    await page.getByTestId('empty-state').filter({ hasText: 'No API keys yet. Create one' }).waitFor();
  });

  test('a plan below VIP is pointed to Billing, and an operator to the CLI line that gives VIP', async () => {
    const account = await api.account('basic');
    const page = await signedIn(account);
    await page.goto('/keys');
    await page.getByRole('link', { name: 'Upgrade on the Billing page.' }).waitFor();
    expect(await page.getByTestId('operator-hint').innerText()).toContain(`npm run cli -- user:plan --user ${account.user.id} --plan vip`);
  });
});

describe('empty states', () => {
  test('every empty list says what to do next', async () => {
    const account = await api.account('vip');
    const page = await signedIn(account);
    const expectations: [string, RegExp, string | null][] = [
      ['/history', /^Nothing here yet/, 'Open the Playground'],
      ['/usage', /^No requests yet/, 'Open the Playground'],
      ['/keys', /^No API keys yet\. Create one/, null],
      ['/webhooks', /^No endpoints yet\. Add one/, null],
      ['/billing', /^No orders yet\. Buy tkn or a plan/, null],
      ['/playground', /^Write a message below/, null],
    ];
    for (const [path, text, link] of expectations) {
      await page.goto(path);
      const empty = page.getByTestId('empty-state').filter({ hasText: text });
      await empty.waitFor();
      if (link) expect(await empty.getByRole('link', { name: link }).getAttribute('href')).toBe('/playground');
    }
    await page.goto('/usage');
    await page.getByRole('tab', { name: 'Refused calls' }).click();
    await page
      .getByTestId('empty-state')
      .filter({ hasText: /^No refused calls/ })
      .waitFor();
    // A filter that matches nothing offers to clear it, not to start over.
    await insertGeneration(api.services.ds, account.user.id, {
      category: 'text',
      modelSlug: 'gpt-6-luna',
      resultKey: null,
      resultMime: null,
      resultText: 'Hi',
    });
    await page.goto('/history');
    await page.getByTestId('history-item').waitFor();
    await page.getByLabel('Category').selectOption('music');
    await page
      .getByTestId('empty-state')
      .filter({ hasText: 'No results match these filters.' })
      .getByRole('button', { name: 'Clear filters' })
      .click();
    await page.getByTestId('history-item').waitFor();
    await page.goto('/models');
    await page.getByLabel('Search').fill('no such model anywhere');
    await page
      .getByTestId('empty-state')
      .filter({ hasText: /^No model matches/ })
      .waitFor();
  });
});

const PAGES = ['/', '/usage', '/keys', '/playground', '/models', '/history', '/billing', '/webhooks', '/account', '/settings'];

describe('axe', () => {
  test.each([1280, 375])('at %i px: nothing critical or serious on any page, nor in the new dialogs and tabs', async (width) => {
    const account = await api.account('vip', { planTokens: 500 });
    const token = await api.accessToken(account);
    await api.request('POST', '/v1/chat/completions', {
      token,
      body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hello' }] },
    });
    await api.services.apiKeys.create(account.user.id, 'axe key');
    const page = await signedIn(account, { phone: width === 375 });
    for (const path of PAGES) {
      await page.goto(path);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      expect([path, await seriousAxeFindings(page)]).toEqual([path, []]);
      expect([path, await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')]).toEqual([path, 0]);
    }
    await page.goto('/history');
    await page
      .getByRole('button', { name: /^Details: / })
      .first()
      .click();
    await page.getByRole('dialog').getByTestId('entry-details').waitFor();
    expect(['/history dialog', await seriousAxeFindings(page)]).toEqual(['/history dialog', []]);
    await page.goto('/usage');
    await page
      .getByRole('button', { name: /^Details of request/ })
      .first()
      .click();
    await page.getByRole('dialog').getByTestId('entry-details').waitFor();
    expect(['/usage dialog', await seriousAxeFindings(page)]).toEqual(['/usage dialog', []]);
    await page.keyboard.press('Escape');
    await page.getByRole('tab', { name: 'Refused calls' }).click();
    await page.getByTestId('empty-state').waitFor();
    expect(['/usage refused', await seriousAxeFindings(page)]).toEqual(['/usage refused', []]);
  });
});
