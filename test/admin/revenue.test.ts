// The revenue report against known orders and generations: refunded, pending and sandbox rows stay out; per model
// the money follows the tokens consumed (pro rata); margin converts rubles and Stars at the configured rates.
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { RevenueReports } from '../../src/core/admin/revenue';
import { createTestDatabase, type TestDatabase } from '../support/databases';

let db: TestDatabase;
let reports: RevenueReports;
const from = new Date('2026-03-01T00:00:00Z');
const to = new Date('2026-03-03T00:00:00Z');

async function order(userId: number, currency: 'RUB' | 'XTR', amountMinor: number, status: string, paidAt: string): Promise<void> {
  await db.dataSource.query(
    `INSERT INTO payment_orders (reference, user_id, article_id, kind, tokens, provider, amount_minor, currency, status, expires_at, paid_at)
     VALUES ('ord_' || md5(random()::text), $1, 'tokens-500', 'tokens', 500, $2, $3, $4, $5, $6::timestamptz + interval '1 day', $6)`,
    [userId, currency === 'XTR' ? 'stars' : 'yookassa', amountMinor, currency, status, paidAt],
  );
}

async function generation(
  userId: number,
  model: string,
  tokens: number,
  costUsd: number,
  completedAt: string,
  sandbox = false,
): Promise<void> {
  await db.dataSource.query(
    `INSERT INTO generations (user_id, model_slug, category, status, tokens_reserved, tokens_spent, vendor_cost_usd, completed_at, sandbox)
     VALUES ($1, $2, 'text', 'completed', $3, $3, $4, $5, $6)`,
    [userId, model, tokens, costUsd, completedAt, sandbox],
  );
}

beforeAll(async () => {
  db = await createTestDatabase();
  reports = new RevenueReports(db.dataSource, { rubPerUsd: 100, usdPerStar: 0.01 });
  const user = await createUser(db.dataSource, new PlanDirectory(db.dataSource), { name: 'buyer' });
  await order(user.id, 'RUB', 100_000, 'fulfilled', '2026-03-01T10:00:00Z');
  await order(user.id, 'XTR', 500, 'fulfilled', '2026-03-02T23:59:59Z');
  await order(user.id, 'RUB', 30_000, 'refunded', '2026-03-01T11:00:00Z');
  await order(user.id, 'RUB', 30_000, 'refund_pending', '2026-03-01T12:00:00Z');
  await order(user.id, 'RUB', 70_000, 'pending', '2026-03-01T12:00:00Z');
  await order(user.id, 'RUB', 90_000, 'fulfilled', '2026-03-03T00:00:00Z');
  await generation(user.id, 'model-a', 300, 0.5, '2026-03-01T10:05:00Z');
  await generation(user.id, 'model-b', 100, 0.25, '2026-03-02T09:00:00Z');
  await generation(user.id, 'model-b', 900, 9, '2026-03-02T09:00:00Z', true);
  await generation(user.id, 'model-a', 900, 9, '2026-02-28T23:59:59Z');
});
afterAll(() => db.drop());

test('per day: the day’s orders and generations, and the totals equal the SQL sums', async () => {
  const r = await reports.report({ from, to, groupBy: 'day' });
  expect(r.rows).toEqual([
    { key: '2026-03-01', revenueRub: 1000, revenueStars: 0, orders: 1, generations: 1, tokens: 300, vendorCostUsd: 0.5, marginUsd: 9.5 },
    { key: '2026-03-02', revenueRub: 0, revenueStars: 500, orders: 1, generations: 1, tokens: 100, vendorCostUsd: 0.25, marginUsd: 4.75 },
  ]);
  expect(r.totals).toEqual({
    revenueRub: 1000,
    revenueStars: 500,
    orders: 2,
    generations: 2,
    tokens: 400,
    vendorCostUsd: 0.75,
    marginUsd: 14.25,
  });
  const [sql] = await db.dataSource.query<{ rub: string; cost: string }[]>(
    `SELECT (SELECT sum(amount_minor) / 100.0 FROM payment_orders
              WHERE currency = 'RUB' AND status IN ('paid', 'fulfilled') AND paid_at >= $1 AND paid_at < $2) AS rub,
            (SELECT sum(vendor_cost_usd) FROM generations WHERE NOT sandbox AND completed_at >= $1 AND completed_at < $2) AS cost`,
    [from, to],
  );
  expect(Number(sql!.rub)).toBe(r.totals.revenueRub);
  expect(Number(sql!.cost)).toBe(r.totals.vendorCostUsd);
});

test('per model: the range’s money split by the tokens each model consumed', async () => {
  const r = await reports.report({ from, to, groupBy: 'model' });
  expect(r.rows).toEqual([
    { key: 'model-a', revenueRub: 750, revenueStars: 375, orders: null, generations: 1, tokens: 300, vendorCostUsd: 0.5, marginUsd: 10.75 },
    { key: 'model-b', revenueRub: 250, revenueStars: 125, orders: null, generations: 1, tokens: 100, vendorCostUsd: 0.25, marginUsd: 3.5 },
  ]);
  expect(r.totals.marginUsd).toBe(14.25);
});

test('a range that ends before it starts, or spans more than a year, is refused', async () => {
  await expect(reports.report({ from: to, to: from, groupBy: 'day' })).rejects.toMatchObject({ code: 'validation_error' });
  await expect(reports.report({ from: new Date('2024-01-01T00:00:00Z'), to, groupBy: 'day' })).rejects.toMatchObject({
    code: 'validation_error',
    field: 'to',
  });
});
