/**
 * Issue 40: the dashboard's Admin section in real headless Chromium against the real service. A customer sees no
 * Admin menu and cannot open it; an admin walks every screen (users, money, catalog, broadcasts, promo codes, audit
 * log) in English and Russian, does one action per screen that the test reads back from the database or the API,
 * and axe finds nothing critical or serious on any of them. DOCS_SCREENSHOTS=1 writes docs/img/admin-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { insertGeneration, type TestAccount } from '../api/harness';
import { screenshot } from './support/browser';
import { dashboardSuite } from './support/dashboard-suite';

jest.setTimeout(120_000);

const DOCS_IMG = path.resolve(__dirname, '..', '..', 'docs', 'img');
let admin: TestAccount;
const suite = dashboardSuite(async (api) => {
  admin = await api.account('vip');
  await api.db.dataSource.query('UPDATE users SET is_admin = true WHERE id = $1', [admin.user.id]);
});
const { signedIn, clean } = suite;

async function docsPicture(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  if (process.env.DOCS_SCREENSHOTS === '1') {
    fs.mkdirSync(DOCS_IMG, { recursive: true });
    await page.screenshot({ path: path.join(DOCS_IMG, `${name}.png`), fullPage: true });
  }
}

const db = () => suite.api.db.dataSource;

test('a customer has no Admin menu, and /admin takes them home', async () => {
  const page = await signedIn(await suite.api.account('pro'));
  expect(await page.getByRole('navigation').getByRole('link', { name: 'Admin', exact: true }).count()).toBe(0);
  await page.goto('/admin');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/');
});

test('an admin finds a user, grants tokens and blocks them; each is in the database and the audit log', async () => {
  const customer = await suite.api.account('pro', { bonusTokens: 0, name: 'Console Customer' });
  const page = await signedIn(admin);
  await page.getByRole('navigation').getByRole('link', { name: 'Admin', exact: true }).click();
  await page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor();
  await page.getByLabel('Email, phone, Telegram id or @username').fill(customer.email);
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await page.getByRole('button', { name: `#${customer.user.id} Console Customer` }).click();
  await page.getByTestId('admin-user-summary').waitFor();
  await clean(page, 'admin user page');
  await docsPicture(page, 'admin-users');

  await page.getByLabel('Bonus tkn (1 to 1,000,000)').fill('750');
  await page.getByLabel('Reason', { exact: true }).first().fill('support ticket 42');
  await page.getByRole('form', { name: 'Grant bonus tkn' }).getByRole('button', { name: 'Grant bonus tkn' }).click();
  await page.getByText('750 bonus tkn granted.').waitFor();
  const [{ bonus_tokens }] = await db().query('SELECT bonus_tokens FROM balances WHERE user_id = $1', [customer.user.id]);
  expect(Number(bonus_tokens)).toBe(750);

  await page.locator('#block-reason').fill('abuse');
  await page.getByRole('button', { name: 'Block', exact: true }).click();
  await page.getByText('The account is blocked: its keys, sessions and bot chats are refused.').waitFor();
  const [{ is_blocked }] = await db().query('SELECT is_blocked FROM users WHERE id = $1', [customer.user.id]);
  expect(is_blocked).toBe(true);

  const actions = (await db().query('SELECT action FROM admin_audit_log WHERE target_id = $1', [String(customer.user.id)])).map(
    (r: { action: string }) => r.action,
  );
  expect(actions).toEqual(expect.arrayContaining(['user.grant', 'user.block']));
});

test('money, catalog, broadcasts, promo codes and the audit log: one action each, read back', async () => {
  // Something to show: two paid orders (rubles and Stars) and answers with their vendor cost, today.
  const buyer = await suite.api.account('free');
  for (const [provider, amount, currency] of [
    ['yookassa', 49_000, 'RUB'],
    ['stars', 250, 'XTR'],
  ] as const)
    await db().query(
      `INSERT INTO payment_orders (reference, user_id, article_id, kind, tokens, provider, amount_minor, currency, status, expires_at, paid_at)
       VALUES ('ord_' || md5(random()::text), $1, 'tokens-500', 'tokens', 500, $2, $3, $4, 'fulfilled', now() + interval '1 day', now())`,
      [buyer.user.id, provider, amount, currency],
    );
  for (const [model, tokens, cost] of [
    ['gpt-6-luna', 40, 0.0021],
    ['flux-dev', 300, 0.025],
  ] as const)
    await insertGeneration(db(), buyer.user.id, { modelSlug: model, tokensSpent: tokens, vendorCostUsd: cost });
  const page = await signedIn(admin);
  await page.goto('/admin?tab=money');
  await page.getByTestId('revenue-table').waitFor();
  await page.getByRole('heading', { name: 'Revenue, vendor cost and margin' }).waitFor();
  await page.getByRole('heading', { name: 'Orders' }).waitFor();
  await clean(page, 'admin money');
  await docsPicture(page, 'admin-money');

  await page.getByRole('tab', { name: 'Catalog' }).click();
  const token = await suite.api.accessToken(admin);
  const before = await suite.api.request('GET', '/api/v2/admin/catalog', { token });
  const slug: string = before.body.data.find((m: { enabled: boolean }) => m.enabled).slug;
  await page.getByRole('button', { name: `On ${slug}`, exact: true }).click();
  await page.getByText(`${slug} saved.`).waitFor();
  const catalog = await suite.api.request('GET', '/api/v2/admin/catalog', { token });
  expect(catalog.body.data.find((m: { slug: string }) => m.slug === slug).enabled).toBe(false);
  await page.getByRole('heading', { name: 'Vendor health' }).waitFor();
  await clean(page, 'admin catalog');

  await page.getByRole('tab', { name: 'Broadcasts' }).click();
  await page.getByLabel('Message').fill('New model this week: try it in the bot.');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByRole('cell', { name: /New model this week/ }).waitFor();
  const [broadcast] = await db().query('SELECT text FROM broadcasts ORDER BY id DESC LIMIT 1');
  expect(broadcast.text).toBe('New model this week: try it in the bot.');
  await clean(page, 'admin broadcasts');

  await page.getByRole('tab', { name: 'Promo codes' }).click();
  await page.getByLabel('Code (empty: made up for you)').fill('WINTER-26');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.getByText('Promo code WINTER-26 created.').waitFor();
  await page.getByRole('rowheader', { name: 'WINTER-26' }).waitFor();
  const [promo] = await db().query(`SELECT bonus_tokens FROM promo_codes WHERE code = 'WINTER-26'`);
  expect(promo.bonus_tokens).toBe(1000);
  await clean(page, 'admin promo codes');

  await page.getByRole('tab', { name: 'Audit log' }).click();
  const table = page.getByTestId('audit-table');
  for (const action of ['catalog.update', 'broadcast.create', 'promo.create'])
    await table.getByRole('cell', { name: action, exact: true }).first().waitFor();
  await clean(page, 'admin audit');
});

test('the console in Russian', async () => {
  await suite.api.request('PATCH', '/api/v2/user/settings', { token: await suite.api.accessToken(admin), body: { language: 'ru' } });
  try {
    const page = await suite.open();
    await page.goto('/sign-in');
    await page.getByLabel(/Email/).first().fill(admin.email);
    await page.getByLabel(/Пароль|Password/).fill(admin.password);
    await page
      .getByRole('button', { name: /Войти|Sign in/ })
      .first()
      .click();
    await page.getByRole('navigation').getByRole('link', { name: 'Админка', exact: true }).click();
    await page.getByRole('tab', { name: 'Пользователи' }).waitFor();
    await clean(page, 'admin users ru');
    await page.getByRole('tab', { name: 'Рассылки' }).click();
    await page.getByRole('heading', { name: 'Новая рассылка' }).waitFor();
    await clean(page, 'admin broadcasts ru');
  } finally {
    await suite.api.request('PATCH', '/api/v2/user/settings', { token: await suite.api.accessToken(admin), body: { language: 'en' } });
  }
});
