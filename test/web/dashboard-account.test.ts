/**
 * The dashboard pages of issue 27 in real headless Chromium against the real service: keys with limits, usage and
 * the request log, the playground's settings, Markdown, images, code and conversations, the account page, the
 * models page, phone width, and axe on every page. The sandbox OpenAI fake is wrapped to record what reached it.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { ApiHarness, insertGeneration, startApi, TestAccount } from '../api/harness';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import type { SandboxHandler } from '../../src/sandbox/types';
import { seriousAxeFindings } from './support/axe';
import { ensureWebBuild, launchBrowser, openDashboard, screenshot, type WatchedPage } from './support/browser';
import { waitUntil } from '../support/wait';

jest.setTimeout(120_000);

let api: ApiHarness;
let browser: Browser;
let origin: string;
const opened: WatchedPage[] = [];
/** Chat bodies the OpenAI and xAI fakes received. */
const vendorBodies: Record<string, unknown>[] = [];
const recordingChat =
  (vendor: 'openai' | 'xai'): SandboxHandler =>
  (req, res) => {
    if (req.path.endsWith('/chat/completions')) vendorBodies.push(JSON.parse(req.body.toString('utf8')) as Record<string, unknown>);
    return sandboxHandlers[vendor](req, res);
  };

beforeAll(async () => {
  ensureWebBuild();
  api = await startApi(
    {},
    {
      handlers: { openai: recordingChat('openai'), xai: recordingChat('xai') },
    },
  );
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

async function open(options: { phone?: boolean } = {}): Promise<Page> {
  const watched = await openDashboard(browser, origin, options);
  opened.push(watched);
  return watched.page;
}

async function signedIn(account: TestAccount, options: { phone?: boolean } = {}): Promise<Page> {
  const page = await open(options);
  await page.goto('/sign-in');
  await page.getByLabel('Email or phone').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

/** Waits until the locator matches exactly `n` elements (the page re-renders after its API answer). */
async function waitCount(locator: Locator, n: number): Promise<void> {
  await waitUntil(async () => (await locator.count()) === n, 10_000).catch(() => undefined);
  expect(await locator.count()).toBe(n);
}

type Tagged = { getAttribute(name: string): string | null };

/** Waits until every element of the locator has the attribute value `value`. */
async function waitAll(locator: Locator, attribute: string, test: (value: string) => boolean): Promise<void> {
  const read = () => locator.evaluateAll((els: Tagged[], name: string) => els.map((e) => e.getAttribute(name) ?? ''), attribute);
  await waitUntil(async () => (await read()).every(test), 10_000).catch(() => undefined);
  expect((await read()).every(test)).toBe(true);
}

/** Sends the playground's message and waits for the answer's end or an error. */
async function send(page: Page, text: string): Promise<void> {
  const before = await page.getByText(/^Done: /).count();
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /^Done: / })
    .or(page.getByRole('alert'))
    .first()
    .waitFor();
  expect(before).toBeLessThanOrEqual(1);
}

describe('API keys with their own limits', () => {
  test('a key created with a budget and a model list reaches 402 in the playground; the list shows spent/budget', async () => {
    const account = await api.account('vip', { planTokens: 1000 });
    const page = await signedIn(account);
    await page.goto('/keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Budgeted');
    await dialog.getByLabel('Budget (tkn)').fill('1');
    await dialog.getByLabel('Period').selectOption('day');
    await dialog.getByLabel('Only the models I choose').check();
    await dialog.getByPlaceholder('Search models').fill('6-luna');
    await dialog.getByLabel('GPT-6 Luna gpt-6-luna').check();
    await dialog.getByLabel('Valid until').fill('2099-12-31');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').innerText()).trim();
    const token = await api.accessToken(account);
    const [listed] = (await api.request('GET', '/api/v2/keys', { token })).body.keys;
    expect(listed).toMatchObject({ name: 'Budgeted', token_budget: 1, budget_period: 'day', models: ['gpt-6-luna'], expired: false });
    expect(listed.expires_at).toMatch(/^2099-12-31T23:59:59/);
    const row = page.getByTestId('key-row').filter({ hasText: 'Budgeted' });
    await row.getByTestId('key-budget').filter({ hasText: '0 of 1 tkn today' }).waitFor();
    expect(await row.innerText()).toContain('1 model');

    // Its model list holds: another model answers 403 with words.
    await page.goto('/playground');
    await page.getByLabel('API key (optional)').fill(key);
    await page.getByLabel('Model', { exact: true }).selectOption('gpt-5.6-luna');
    await send(page, 'hello');
    await page.getByRole('alert').filter({ hasText: 'This API key may not use this model.' }).waitFor();

    // Its budget holds: within two requests the key is refused with 402 and the page says why.
    await page.getByLabel('Model', { exact: true }).selectOption('gpt-6-luna');
    // A small answer cap keeps the hold within the 1-token budget (gpt-6-luna may write 128K tokens otherwise).
    await page.getByLabel('Max output (model tokens)').fill('100');
    const refused = page.getByRole('alert').filter({ hasText: /^This API key has spent its token budget for the period/ });
    const statuses: number[] = [];
    page.on('response', (r) => r.url().endsWith('/v1/chat/completions') && statuses.push(r.status()));
    for (let i = 0; i < 3 && (await refused.count()) === 0; i++) await send(page, `question ${i}`);
    await refused.waitFor();
    expect(statuses.at(-1)).toBe(402);

    await page.goto('/keys');
    await row
      .getByTestId('key-budget')
      .filter({ hasText: /^1 of 1 tkn today$/ })
      .waitFor();
    await screenshot(page, 'api-keys');

    // Edited: the budget removed; the list says so.
    await row.getByRole('button', { name: 'Edit: Budgeted' }).click();
    await dialog.getByLabel('Budget (tkn)').fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await row.getByText('No budget').waitFor();
    expect((await api.request('GET', '/api/v2/keys', { token })).body.keys[0].token_budget).toBeNull();
  });

  test('an expired key is shown as expired', async () => {
    const account = await api.account('vip');
    const created = await api.services.apiKeys.create(account.user.id, 'Old one');
    const token = await api.accessToken(account);
    const res = await api.request('PATCH', `/api/v2/keys/${created.id}`, { token, body: { expires_at: '2020-01-01T00:00:00Z' } });
    expect(res.status).toBe(200);
    const page = await signedIn(account);
    await page.goto('/keys');
    await page.getByTestId('key-row').filter({ hasText: 'Old one' }).getByTestId('key-expiry').filter({ hasText: 'Expired' }).waitFor();
  });
});

describe('usage', () => {
  test('the overview breaks usage down by model with the API’s sums; bars tell their figures on hover and focus', async () => {
    const account = await api.account('pro');
    const ds = api.services.ds;
    const uid = account.user.id;
    for (let day = 0; day < 20; day++) {
      await insertGeneration(ds, uid, {
        category: 'text',
        modelSlug: 'gpt-6-luna',
        tokensSpent: 2 + day,
        createdAt: new Date(Date.now() - day * 86_400_000),
      });
      if (day % 2 === 0)
        await insertGeneration(ds, uid, { modelSlug: 'flux-dev', tokensSpent: 7, createdAt: new Date(Date.now() - day * 86_400_000) });
    }
    const token = await api.accessToken(account);
    const byModel = (await api.request('GET', '/api/v2/user/usage?group_by=model', { token })).body;
    const page = await signedIn(account);
    const rows = page.getByTestId('by-model-row');
    await rows.first().waitFor();
    const shown = await rows.evaluateAll((trs: { children: ArrayLike<{ textContent: string | null }> }[]) =>
      trs.map((tr) =>
        Array.from(tr.children)
          .slice(0, 3)
          .map((c) => (c.textContent ?? '').trim()),
      ),
    );
    expect(shown).toEqual(
      byModel.groups.map((g: { name: string; tokens: number; count: number }) => [
        g.name,
        g.tokens.toLocaleString('en-GB'),
        String(g.count),
      ]),
    );
    await page.getByTestId('by-key-row').filter({ hasText: 'Web and bot (no key)' }).waitFor();

    // Hover: the day's figures in a tooltip; keyboard focus does the same.
    const bars = page.getByTestId('usage-bar');
    expect(await bars.count()).toBe(30);
    await bars.last().hover();
    await page
      .getByTestId('usage-tooltip')
      .filter({ hasText: /tkn · \d+ generations?/ })
      .waitFor();
    await bars.nth(10).focus();
    expect(await bars.nth(10).getAttribute('aria-label')).toMatch(/^\d{1,2} \w{3} \d{4}: \d+ tkn, \d+ generations?$/);
    await screenshot(page, 'overview');

    // The 7-day preset asks the API for 7 days; the table alternative has a row per day.
    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await waitCount(bars, 7);
    await page.getByText('Show the figures as a table').click();
    expect(await page.locator('.chart-table tbody tr').count()).toBe(7);
  });

  test('the request log shows door, key and latency, filters, pages and exports CSV', async () => {
    const account = await api.account('vip');
    const ds = api.services.ds;
    const uid = account.user.id;
    const key = await api.services.apiKeys.create(uid, 'ci');
    for (let i = 0; i < 30; i++) await insertGeneration(ds, uid, { source: 'api', processingMs: 100 + i });
    const viaKey = await insertGeneration(ds, uid, {
      source: 'v1',
      apiKeyId: key.id,
      category: 'text',
      modelSlug: 'gpt-6-luna',
      processingMs: 640,
    });
    await insertGeneration(ds, uid, { source: 'bot', status: 'failed', error: 'The model flux-dev is overloaded' });
    const page = await signedIn(account);
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByRole('heading', { name: 'Usage: request log' }).waitFor();
    await page.getByTestId('log-row').nth(24).waitFor();
    expect(await page.getByTestId('log-row').count()).toBe(25);
    const second = page.getByTestId('log-row').nth(1);
    expect(await second.innerText()).toMatch(/API\s+ci\s+gpt-6-luna\s+Completed\s+3\s+—\s+640 ms/);
    expect(await page.getByTestId('log-row').first().innerText()).toMatch(/Bot\s+—\s+flux-dev\s+Failed/);
    await screenshot(page, 'request-log');

    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2').waitFor();
    await waitCount(page.getByTestId('log-row'), 7);
    await page.getByLabel('API key').selectOption(String(key.id));
    await page.getByText('Page 1').waitFor();
    await waitCount(page.getByTestId('log-row'), 1);
    expect(await page.getByTestId('log-row').getAttribute('data-door')).toBe('api');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Door').selectOption('web');
    await waitAll(page.getByTestId('log-row'), 'data-door', (door) => door === 'web');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await (await download).createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of file) chunks.push(chunk as Buffer);
    const lines = Buffer.concat(chunks).toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,created_at,door,api_key_id,api_key,model,category,status,cost_tkn,model_tokens_in,model_tokens_out,model_tokens_cached,latency_ms,error',
    );
    expect(lines).toHaveLength(31);
    expect(lines.slice(1).every((l) => l.split(',')[2] === 'web')).toBe(true);
    expect(lines.some((l) => l.startsWith(`${viaKey.id},`))).toBe(false);
  });
});

describe('playground', () => {
  test('the system prompt, temperature and max tokens reach the model; Markdown is rendered, HTML is not', async () => {
    const account = await api.account('pro', { planTokens: 500 });
    const page = await signedIn(account);
    await page.goto('/playground');
    // A model that takes a temperature (every OpenAI model of the catalog reasons and refuses one).
    await page.getByLabel('Model', { exact: true }).selectOption('grok-4.20');
    // Each number field is wide enough for its placeholder ("Model default"), the spin buttons beside it.
    for (const id of ['chat-temperature', 'chat-max-tokens']) {
      const room = await page.evaluate<number>(`(() => {
        const el = document.getElementById('${id}');
        const style = getComputedStyle(el);
        const context = document.createElement('canvas').getContext('2d');
        context.font = style.font;
        return el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - context.measureText(el.placeholder).width;
      })()`);
      expect(room).toBeGreaterThan(20);
    }
    await page.getByLabel('System prompt').fill('You are a lighthouse keeper. Answer briefly.');
    await page.getByLabel('Temperature (0–2)').fill('0.3');
    await page.getByLabel('Max output (model tokens)').fill('300');
    vendorBodies.length = 0;
    await send(page, '**bold** and `code` <img src=x onerror="window.__xss=1">');
    await page
      .getByRole('status')
      .filter({ hasText: /^Done: \d+ tkn spent/ })
      .waitFor();
    const body = vendorBodies.at(-1)!;
    expect((body.messages as { role: string; content: unknown }[])[0]).toEqual({
      role: 'system',
      content: 'You are a lighthouse keeper. Answer briefly.',
    });
    expect(body.temperature).toBe(0.3);
    expect(body.max_completion_tokens ?? body.max_tokens).toBe(300);

    const answer = page.getByTestId('chat-assistant').last();
    expect(await answer.locator('strong').innerText()).toBe('bold');
    expect(await answer.locator('code').first().innerText()).toBe('code');
    expect(await answer.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
  });

  test('an image goes to a vision model as an image_url part, shown as a square thumbnail; the conversation is kept after a reload', async () => {
    const account = await api.account('pro', { planTokens: 500 });
    const page = await signedIn(account);
    await page.goto('/playground');
    await page.getByLabel('Model', { exact: true }).selectOption('gpt-6-luna');
    const hills =
      '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120"><rect width="160" height="120" fill="#7dd3fc"/>' +
      '<circle cx="120" cy="32" r="16" fill="#facc15"/><path d="M0 120 L50 50 L85 95 L110 70 L160 120 Z" fill="#15803d"/></svg>';
    const png = await sharp(Buffer.from(hills)).png().toBuffer();
    await page.getByLabel('Attach images').setInputFiles({ name: 'hills.png', mimeType: 'image/png', buffer: png });
    await page.getByTestId('attached-image').waitFor();
    vendorBodies.length = 0;
    await send(page, 'What is in this picture?');
    await page.getByTestId('chat-assistant').filter({ hasText: 'I received 1 image.' }).waitFor();
    const user = (vendorBodies.at(-1)!.messages as { role: string; content: { type: string; image_url?: { url: string } }[] }[]).at(-1)!;
    expect(user.content.map((p) => p.type)).toEqual(['text', 'image_url']);
    expect(user.content[1]!.image_url!.url).toMatch(/^data:image\/png;base64,/);
    // The sent picture is a thumbnail of fixed size whatever its own (4:3 here), not the picture at its own size.
    const thumb = await page.getByTestId('chat-user').last().getByRole('img', { name: 'Attached image 1' }).boundingBox();
    expect(thumb!.width).toBeGreaterThanOrEqual(96);
    expect(thumb!.height).toBeCloseTo(thumb!.width, 0);
    await screenshot(page, 'playground');

    await page.reload();
    await page.getByTestId('conversations').getByRole('button', { name: 'What is in this picture?', exact: true }).waitFor();
    await page.getByTestId('chat-assistant').filter({ hasText: 'I received 1 image.' }).waitFor();
    await page.getByRole('button', { name: 'New conversation' }).first().click();
    expect(await page.getByTestId('chat-assistant').count()).toBe(0);
    await page.getByRole('button', { name: 'Delete conversation “What is in this picture?”' }).click();
    await page.getByText('Conversations are kept in this browser.').waitFor();
  });

  test('View code shows the exact request in curl, Python and JavaScript; the curl body works with an API key', async () => {
    const account = await api.account('vip', { planTokens: 500 });
    const page = await signedIn(account);
    await page.goto('/playground');
    await page.getByLabel('Model', { exact: true }).selectOption('grok-4.20');
    await page.getByLabel('System prompt').fill('Speak like a sailor.');
    await page.getByLabel('Temperature (0–2)').fill('0.7');
    await page.getByLabel('Message').fill('Where is the harbour?');
    await page.getByRole('button', { name: 'View code' }).click();
    const code = page.getByTestId('request-code');
    const curl = await code.innerText();
    expect(curl).toContain(`curl ${origin}/v1/chat/completions`);
    expect(curl).toContain('Authorization: Bearer $NEBULA_API_KEY');
    const json = JSON.parse(/-d '([\s\S]*)'$/.exec(curl)![1]!) as Record<string, unknown>;
    expect(json).toEqual({
      model: 'grok-4.20',
      messages: [
        { role: 'system', content: 'Speak like a sailor.' },
        { role: 'user', content: 'Where is the harbour?' },
      ],
      temperature: 0.7,
      stream: true,
      stream_options: { include_usage: true },
    });
    // The body the page shows is one the API takes.
    const key = await api.apiKey(account);
    const res = await fetch(`${api.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(json),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('data: [DONE]');

    await page.getByRole('tab', { name: 'Python' }).click();
    const python = await code.innerText();
    expect(python).toContain('from openai import OpenAI');
    expect(python).toContain(`client = OpenAI(base_url="${origin}/v1", api_key=os.environ["NEBULA_API_KEY"])`);
    expect(python).toContain('    temperature=0.7,');
    expect(python).toContain('"content": "Speak like a sailor."');
    await page.getByRole('tab', { name: 'JavaScript' }).click();
    const js = await code.innerText();
    expect(js).toContain("import OpenAI from 'openai';");
    expect(js).toContain('"temperature": 0.7');
    await screenshot(page, 'playground-code');
  });
});

describe('account', () => {
  test('changing the password ends the other session; the sessions list revokes one', async () => {
    const account = await api.account('free');
    const other = await signedIn(account);
    const page = await signedIn(account);
    await page.goto('/account');
    const rows = page.getByTestId('session-row');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await page.locator('[data-testid="session-row"][data-current="true"]').innerText()).toMatch(/Chrome on Linux\s+This device/);

    await page
      .locator('[data-testid="session-row"][data-current="false"]')
      .getByRole('button', { name: /^Sign out: / })
      .click();
    await page.getByText(/is signed out\.$/).waitFor();
    await waitCount(rows, 1);
    await other.goto('/keys');
    await other.getByRole('heading', { name: 'Sign in' }).waitFor();

    // Sign the other browser in again, then change the password here: it is signed out once more.
    await other.getByLabel('Email or phone').fill(account.email);
    await other.getByLabel('Password').fill(account.password);
    await other.getByRole('button', { name: 'Sign in', exact: true }).click();
    await other.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Current password').fill(account.password);
    await page.getByLabel('New password').fill('a new long password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Other sessions signed out: 1.').waitFor();
    await screenshot(page, 'account');
    await other.goto('/billing');
    await other.getByRole('heading', { name: 'Sign in' }).waitFor();
    const old = await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } });
    expect(old.status).toBe(401);
  });

  test('resend verification, then delete the account behind a typed confirmation', async () => {
    const account = await api.account('free');
    const page = await signedIn(account);
    await page.goto('/account');
    await page.getByText('Not verified').waitFor();
    await page.getByRole('button', { name: 'Send the verification link again' }).click();
    await page.getByText(`A verification link was sent to ${account.email}.`).waitFor();

    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const dialog = page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: 'Delete account forever' });
    await dialog.getByLabel('Current password').fill(account.password);
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    await confirm.click();
    await page.getByText('Your account was deleted.').waitFor();
    expect((await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } })).status).toBe(
      401,
    );
  });
});

describe('models', () => {
  test('every model with price, plan, capabilities and lifecycle; locked ones marked; filtered by category and words', async () => {
    const account = await api.account('free');
    const catalog = (await api.request('GET', '/api/v2/models', { token: await api.accessToken(account) })).body;
    const page = await signedIn(account);
    await page.getByRole('link', { name: 'Models', exact: true }).click();
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    await page
      .getByTestId('models-count')
      .filter({ hasText: `${catalog.total} models` })
      .waitFor();
    expect(await page.getByTestId('model-row').count()).toBe(catalog.total);
    const locked = catalog.models.filter((m: { min_plan: string }) => m.min_plan !== 'free').length;
    expect(await page.locator('[data-testid="model-row"][data-locked="true"]').count()).toBe(locked);
    const mini = page.locator('[data-slug="gpt-6-luna"]');
    expect(await mini.innerText()).toMatch(/Vision/);
    expect(await mini.innerText()).toMatch(/Tools/);
    await screenshot(page, 'models');

    await page.getByLabel('Category').selectOption('image');
    const images = catalog.models.filter((m: { category: string }) => m.category === 'image').length;
    await page
      .getByTestId('models-count')
      .filter({ hasText: `${images} models` })
      .waitFor();
    await page.getByLabel('Search').fill('flux');
    await waitAll(page.getByTestId('model-row'), 'data-slug', (slug) => slug.includes('flux'));
  });
});

const PAGES = ['/', '/usage', '/keys', '/playground', '/models', '/history', '/billing', '/webhooks', '/account', '/settings'];

describe('every page', () => {
  test('at 375 px: the menu opens from a button, and nothing is wider than the screen', async () => {
    const account = await api.account('vip');
    await api.services.apiKeys.create(account.user.id, 'phone key');
    await insertGeneration(api.services.ds, account.user.id, {
      resultKey: null,
      resultMime: null,
      category: 'text',
      modelSlug: 'gpt-6-luna',
      resultText: 'Hi',
    });
    const page = await signedIn(account, { phone: true });
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of PAGES) {
      await page.getByRole('button', { name: 'Menu' }).click();
      const link = page.locator(`nav a[href="${path}"]`);
      await link.click();
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect([path, overflow]).toEqual([path, 0]);
      await screenshot(page, `phone${path === '/' ? '-overview' : path.replace('/', '-')}`);
    }
  });

  test('axe finds nothing critical or serious on any page, signed out or in, with dialogs open', async () => {
    const account = await api.account('vip');
    await insertGeneration(api.services.ds, account.user.id, {
      resultKey: null,
      resultMime: null,
      category: 'text',
      modelSlug: 'gpt-6-luna',
      resultText: 'Hi',
    });
    await api.services.apiKeys.create(account.user.id, 'axe key');
    const out = await open();
    for (const path of ['/sign-in', '/register', '/forgot-password']) {
      await out.goto(path);
      await out.locator('h1').waitFor();
      expect([path, await seriousAxeFindings(out)]).toEqual([path, []]);
    }
    const page = await signedIn(account);
    for (const path of PAGES) {
      await page.goto(path);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      expect([path, await seriousAxeFindings(page)]).toEqual([path, []]);
    }
    await page.goto('/keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog').getByLabel('Only the models I choose').check();
    expect(['/keys dialog', await seriousAxeFindings(page)]).toEqual(['/keys dialog', []]);
    await page.goto('/playground');
    await page.getByRole('button', { name: 'View code' }).click();
    expect(['/playground code', await seriousAxeFindings(page)]).toEqual(['/playground code', []]);
  });
});
