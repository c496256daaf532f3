import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { InsufficientTokensError } from '../../src/core/billing/errors';
import { getBalance, grantBonus, ledgerTotals, release, reserve, setPlanTokens, settle } from '../../src/core/billing/ledger';
import { createTestDatabase, TestDatabase } from '../support/databases';

let db: TestDatabase;
let plans: PlanDirectory;

beforeAll(async () => {
  db = await createTestDatabase();
  plans = new PlanDirectory(db.dataSource);
});
afterAll(() => db.drop());

async function userWith(planTokens: number, bonusTokens: number): Promise<number> {
  const u = await createUser(db.dataSource, plans, { name: 'L', plan: 'basic', planTokens, bonusTokens });
  return u.id;
}

async function expectLedgerMatchesBalance(userId: number): Promise<void> {
  const b = await getBalance(db.dataSource, userId);
  const sums = await ledgerTotals(db.dataSource, userId);
  expect(sums).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

test('a new Starter user gets the one-time 50-token grant as bonus tokens, once', async () => {
  const u = await createUser(db.dataSource, plans, { name: 'S' });
  expect(await getBalance(db.dataSource, u.id)).toMatchObject({ planTokens: 0, bonusTokens: 50, total: 50 });
  expect(await grantBonus(db.dataSource, u.id, 50, 'starter-grant')).toBe(false);
  expect((await getBalance(db.dataSource, u.id)).total).toBe(50);
  await expectLedgerMatchesBalance(u.id);
});

test('reserve takes plan tokens first, then bonus tokens', async () => {
  const id = await userWith(2, 10);
  const r = await reserve(db.dataSource, id, `split-${id}`, 5);
  expect(r).toMatchObject({ planAmount: 2, bonusAmount: 3 });
  expect(await getBalance(db.dataSource, id)).toMatchObject({ planTokens: 0, bonusTokens: 7 });
  await expectLedgerMatchesBalance(id);
});

test('200 parallel reservations of 3 against 100 tokens admit exactly 33 and leave exactly 1', async () => {
  const id = await userWith(40, 60);
  const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => reserve(db.dataSource, id, `par-${id}-${i}`, 3)));
  const admitted = results.filter((r) => r.status === 'fulfilled');
  const refused = results.filter((r) => r.status === 'rejected');
  expect(admitted).toHaveLength(33);
  expect(refused).toHaveLength(167);
  for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(InsufficientTokensError);
  expect((await getBalance(db.dataSource, id)).total).toBe(1);
  await expectLedgerMatchesBalance(id);
});

test('settle repeated 5 times in parallel charges once and refunds the rest once', async () => {
  const id = await userWith(10, 10);
  await reserve(db.dataSource, id, `s-${id}`, 8);
  const outcomes = await Promise.all(Array.from({ length: 5 }, () => settle(db.dataSource, `s-${id}`, 3)));
  expect(outcomes.filter((o) => o !== null)).toEqual([{ charged: 3, refundedPlan: 5, refundedBonus: 0 }]);
  const b = await getBalance(db.dataSource, id);
  expect(b).toMatchObject({ total: 17, usedThisPeriod: 3 });
  expect(await release(db.dataSource, `s-${id}`)).toBeNull();
  expect((await getBalance(db.dataSource, id)).total).toBe(17);
  await expectLedgerMatchesBalance(id);
});

test('release repeated 5 times in parallel refunds once, bonus back to bonus', async () => {
  const id = await userWith(1, 10);
  await reserve(db.dataSource, id, `r-${id}`, 6);
  const outcomes = await Promise.all(Array.from({ length: 5 }, () => release(db.dataSource, `r-${id}`)));
  expect(outcomes.filter((o) => o !== null)).toEqual([{ charged: 0, refundedPlan: 1, refundedBonus: 5 }]);
  expect(await getBalance(db.dataSource, id)).toMatchObject({ planTokens: 1, bonusTokens: 10, usedThisPeriod: 0 });
  expect(await settle(db.dataSource, `r-${id}`, 6)).toBeNull();
  await expectLedgerMatchesBalance(id);
});

test('settle never charges more than was reserved', async () => {
  const id = await userWith(0, 10);
  await reserve(db.dataSource, id, `cap-${id}`, 4);
  expect(await settle(db.dataSource, `cap-${id}`, 9)).toEqual({ charged: 4, refundedPlan: 0, refundedBonus: 0 });
  expect((await getBalance(db.dataSource, id)).total).toBe(6);
});

test('the same reference reserves once, also in parallel', async () => {
  const id = await userWith(0, 20);
  const rs = await Promise.all(Array.from({ length: 10 }, () => reserve(db.dataSource, id, `same-${id}`, 5)));
  for (const r of rs) expect(r).toMatchObject({ planAmount: 0, bonusAmount: 5 });
  expect((await getBalance(db.dataSource, id)).total).toBe(15);
  await expectLedgerMatchesBalance(id);
});

test('refill resets plan tokens to the allowance (not accumulated) and keeps bonus tokens', async () => {
  const id = await userWith(300, 7);
  await reserve(db.dataSource, id, `ref-${id}`, 100);
  await settle(db.dataSource, `ref-${id}`, 100);
  expect(await setPlanTokens(db.dataSource, id, 1000, 'refill', 'period:test')).toBe(true);
  expect(await setPlanTokens(db.dataSource, id, 1000, 'refill', 'period:test')).toBe(false);
  expect(await getBalance(db.dataSource, id)).toMatchObject({ planTokens: 1000, bonusTokens: 7, usedThisPeriod: 0 });
  await expectLedgerMatchesBalance(id);
});

test('an insufficient balance is a typed error naming what was needed and available', async () => {
  const id = await userWith(1, 1);
  await expect(reserve(db.dataSource, id, `poor-${id}`, 3)).rejects.toMatchObject({ required: 3, available: 2 });
  expect((await getBalance(db.dataSource, id)).total).toBe(2);
});
