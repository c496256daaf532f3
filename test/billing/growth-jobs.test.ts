import { BILLING_PERIOD_DAYS, PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import type { PlanSlug } from '../../src/core/catalog/types';
import { getBalance, ledgerTotals, release, reserve, settle } from '../../src/core/billing/ledger';
import { refillDuePlans } from '../../src/core/billing/refill';
import { purgeClosedReservations } from '../../src/core/billing/reservation-purge';
import { createTestDatabase, type TestDatabase } from '../support/databases';

let db: TestDatabase;
let plans: PlanDirectory;

beforeAll(async () => {
  db = await createTestDatabase();
  plans = new PlanDirectory(db.dataSource);
});
afterAll(() => db.drop());

const ds = () => db.dataSource;
const DAY_MS = 86_400_000;

interface Account {
  id: number;
  boundary: Date;
}

/** An account due for its refill at a boundary one minute ago (milliseconds kept, as stored references carry them). */
async function dueAccount(
  plan: PlanSlug,
  planTokens: number,
  bonusTokens: number,
  paidThrough: 'lapsed' | 'renewed' | null,
): Promise<Account> {
  const user = await createUser(ds(), plans, { name: `due-${plan}`, plan, planTokens, bonusTokens });
  const boundary = new Date(Date.now() - 60_000 - (user.id % 997));
  const paid = paidThrough === 'lapsed' ? boundary : paidThrough === 'renewed' ? new Date(boundary.getTime() + 40 * DAY_MS) : null;
  await ds().query('UPDATE users SET next_refill_at = $2, plan_paid_through = $3, plan_expires_at = $3 WHERE id = $1', [
    user.id,
    boundary,
    paid,
  ]);
  return { id: user.id, boundary };
}

async function expectLedgerMatchesBalance(userId: number): Promise<void> {
  const b = await getBalance(ds(), userId);
  expect(await ledgerTotals(ds(), userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

test('the batched refill resets each due account once, lapses unpaid plans, keeps bonus tokens, and matches the ledger', async () => {
  const free = await dueAccount('free', 3, 40, null);
  const operatorSet = await dueAccount('basic', 0, 0, null);
  const renewed = await dueAccount('pro', 1234, 7, 'renewed');
  const lapsed = await dueAccount('vip', 500, 100, 'lapsed');
  const notDue = await createUser(ds(), plans, { name: 'not-due', plan: 'pro', planTokens: 11, bonusTokens: 0 });
  const allowance = async (slug: PlanSlug) => (await plans.get(slug)).monthlyTokens;

  // Batches of 3 take the four due accounts (and nothing else) in two statements.
  expect(await refillDuePlans(ds(), { batchSize: 3 })).toBe(4);

  const expected: [Account, PlanSlug, number, number][] = [
    [free, 'free', await allowance('free'), 40],
    [operatorSet, 'basic', await allowance('basic'), 0],
    [renewed, 'pro', await allowance('pro'), 7],
    [lapsed, 'free', 0, 100],
  ];
  for (const [account, slug, planTokens, bonusTokens] of expected) {
    const [row] = await ds().query<{ plan_slug: string; next_refill_at: Date; period_started_at: Date; plan_expires_at: Date | null }[]>(
      'SELECT plan_slug, next_refill_at, period_started_at, plan_expires_at FROM users WHERE id = $1',
      [account.id],
    );
    expect(row.plan_slug).toBe(slug);
    expect(new Date(row.period_started_at).getTime()).toBe(account.boundary.getTime());
    expect(new Date(row.next_refill_at).getTime()).toBe(account.boundary.getTime() + BILLING_PERIOD_DAYS * DAY_MS);
    expect(await getBalance(ds(), account.id)).toMatchObject({ planTokens, bonusTokens, usedThisPeriod: 0 });
    // The reference the per-account refill wrote (a JavaScript ISO string), so a period is never refilled twice across the change.
    const [{ n }] = await ds().query(
      `SELECT count(*)::int AS n FROM ledger_entries WHERE user_id = $1 AND kind = 'refill' AND reference = $2`,
      [account.id, `period:${account.boundary.toISOString()}`],
    );
    expect(n).toBe(1);
    await expectLedgerMatchesBalance(account.id);
  }
  const [renewedRow] = await ds().query('SELECT plan_expires_at, plan_paid_through FROM users WHERE id = $1', [renewed.id]);
  expect(new Date(renewedRow.plan_expires_at).getTime()).toBe(new Date(renewedRow.plan_paid_through).getTime());
  const [lapsedRow] = await ds().query('SELECT plan_expires_at, plan_paid_through FROM users WHERE id = $1', [lapsed.id]);
  expect(lapsedRow).toEqual({ plan_expires_at: null, plan_paid_through: null });
  expect(await getBalance(ds(), notDue.id)).toMatchObject({ planTokens: 11 });

  // Nothing is due any more; a period replayed (its ledger row exists) advances the account but moves no tokens.
  expect(await refillDuePlans(ds(), { batchSize: 3 })).toBe(0);
  await reserve(ds(), renewed.id, 'growth-spend', 200);
  await settle(ds(), 'growth-spend', 200);
  await ds().query('UPDATE users SET next_refill_at = $2 WHERE id = $1', [renewed.id, renewed.boundary]);
  expect(await refillDuePlans(ds())).toBe(1);
  expect(await getBalance(ds(), renewed.id)).toMatchObject({ planTokens: (await allowance('pro')) - 200 });
  const [{ n }] = await ds().query(`SELECT count(*)::int AS n FROM ledger_entries WHERE user_id = $1 AND reference = $2`, [
    renewed.id,
    `period:${renewed.boundary.toISOString()}`,
  ]);
  expect(n).toBe(1);
  await expectLedgerMatchesBalance(renewed.id);
});

test('closed reservations older than the kept days are purged in batches; open and recent ones stay; money unchanged', async () => {
  const user = await createUser(ds(), plans, { name: 'purge', plan: 'free', planTokens: 1000, bonusTokens: 0 });
  for (let i = 0; i < 5; i++) {
    await reserve(ds(), user.id, `purge-settled-${i}`, 10);
    await settle(ds(), `purge-settled-${i}`, 4);
  }
  await reserve(ds(), user.id, 'purge-released', 10);
  await release(ds(), 'purge-released');
  await reserve(ds(), user.id, 'purge-open', 10);
  await reserve(ds(), user.id, 'purge-recent', 10);
  await settle(ds(), 'purge-recent', 10);
  await ds().query(
    `UPDATE token_reservations SET updated_at = now() - interval '40 days' WHERE user_id = $1 AND reference <> 'purge-recent'`,
    [user.id],
  );
  const before = await getBalance(ds(), user.id);

  expect(await purgeClosedReservations(ds(), { batchSize: 2 })).toBe(6);

  const left = await ds().query<{ reference: string }[]>('SELECT reference FROM token_reservations WHERE user_id = $1 ORDER BY reference', [
    user.id,
  ]);
  expect(left.map((r) => r.reference)).toEqual(['purge-open', 'purge-recent']);
  expect(await getBalance(ds(), user.id)).toEqual(before);
  await expectLedgerMatchesBalance(user.id);
  // The open hold still settles once after the purge.
  expect(await settle(ds(), 'purge-open', 3)).not.toBeNull();
  expect(await settle(ds(), 'purge-open', 3)).toBeNull();
  await expectLedgerMatchesBalance(user.id);
});
