/**
 * Issue 40 in real headless Chromium against the real service: a promo code redeemed on the Billing page (the
 * balance read back from the database, not just the page), with axe finding nothing critical or serious.
 */
import type { Browser, Page } from 'playwright-core';
import { ApiHarness, startApi, TestAccount } from '../api/harness';
import { seriousAxeFindings } from './support/axe';
import { ensureWebBuild, launchBrowser, openDashboard, type WatchedPage } from './support/browser';

jest.setTimeout(90_000);

let api: ApiHarness;
let browser: Browser;
let origin: string;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  ensureWebBuild();
  api = await startApi();
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

async function signedIn(account: TestAccount): Promise<Page> {
  const watched = await openDashboard(browser, origin);
  opened.push(watched);
  const page = watched.page;
  await page.goto('/sign-in');
  await page.getByLabel('Email or phone').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

async function noSeriousFindings(page: Page, label: string): Promise<void> {
  expect([label, await seriousAxeFindings(page)]).toEqual([label, []]);
}

async function bonusOf(userId: number): Promise<number> {
  const rows = await api.db.dataSource.query<{ bonus_tokens: number }[]>('SELECT bonus_tokens FROM balances WHERE user_id = $1', [userId]);
  return Number(rows[0]!.bonus_tokens);
}

describe('promo codes on the Billing page', () => {
  test('a customer redeems a code once: the balance grows, a second try says it was redeemed', async () => {
    await api.services.promos.create(
      { code: 'SPRING500', bonusTokens: 500, maxUses: 10, expiresAt: null },
      { userId: null, door: 'cli', label: 'cli' },
    );
    const customer = await api.account('pro', { planTokens: 100, bonusTokens: 0 });
    const page = await signedIn(customer);
    await page.goto('/billing');
    await page.getByTestId('billing-balance').filter({ hasText: '100 tkn' }).waitFor();
    await page.getByRole('textbox', { name: 'Promo code' }).fill('spring500');
    await page.getByRole('button', { name: 'Redeem', exact: true }).click();
    await page.getByText('Promo code SPRING500 redeemed: 500 tkn bonus.').waitFor();
    await page.getByTestId('billing-balance').filter({ hasText: '600 tkn' }).waitFor();
    expect(await bonusOf(customer.user.id)).toBe(500);
    await noSeriousFindings(page, '/billing redeemed');

    await page.getByRole('textbox', { name: 'Promo code' }).fill('SPRING500');
    await page.getByRole('button', { name: 'Redeem', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'You have already redeemed this promo code.' }).waitFor();
    expect(await bonusOf(customer.user.id)).toBe(500);
  });
});
