/**
 * Issue 40 in real headless Chromium against the real service: a promo code redeemed on the Billing page (the
 * balance read back from the database, not just the page), with axe finding nothing critical or serious.
 */
import { dashboardSuite } from './support/dashboard-suite';

jest.setTimeout(90_000);

const suite = dashboardSuite();
const { signedIn, clean: noSeriousFindings } = suite;

async function bonusOf(userId: number): Promise<number> {
  const rows = await suite.api.db.dataSource.query<{ bonus_tokens: number }[]>('SELECT bonus_tokens FROM balances WHERE user_id = $1', [
    userId,
  ]);
  return Number(rows[0]!.bonus_tokens);
}

describe('promo codes on the Billing page', () => {
  test('a customer redeems a code once: the balance grows, a second try says it was redeemed', async () => {
    await suite.api.services.promos.create(
      { code: 'SPRING500', bonusTokens: 500, maxUses: 10, expiresAt: null },
      { userId: null, door: 'cli', label: 'cli' },
    );
    const customer = await suite.api.account('pro', { planTokens: 100, bonusTokens: 0 });
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
