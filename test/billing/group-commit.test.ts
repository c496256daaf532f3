import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { InsufficientTokensError } from '../../src/core/billing/errors';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { GenerationBilling } from '../../src/core/generations/settlement/billing-batches';
import { DeferredOutcome } from '../../src/core/generations/settlement/billing-outbox';
import { NewGeneration } from '../../src/core/generations/settlement/lifecycle';
import { FastSql } from '../../src/db/fast-sql';
import { countingSql } from '../support/counting-sql';
import { createTestDatabase, TestDatabase } from '../support/databases';

let db: TestDatabase;
let plans: PlanDirectory;
let holds: { sql: FastSql; close: () => Promise<void> };
let sql: FastSql;

beforeAll(async () => {
  db = await createTestDatabase();
  plans = new PlanDirectory(db.dataSource);
  holds = FastSql.asyncCommitPool(db.url);
  sql = FastSql.of(db.dataSource);
});
afterAll(async () => {
  await holds.close();
  await db.drop();
});

function billingOf(batch: boolean) {
  const holdSql = countingSql(holds.sql);
  const settleSql = countingSql(sql);
  return { billing: new GenerationBilling({ holdSql, sql: settleSql, batch }), holdSql, settleSql };
}

async function userWith(planTokens: number, bonusTokens: number): Promise<number> {
  return (await createUser(db.dataSource, plans, { name: 'B', plan: 'basic', planTokens, bonusTokens })).id;
}

function generation(userId: number, tokensReserved: number, prompt = 'hi'): NewGeneration {
  return {
    userId,
    modelSlug: 'gpt-6-luna',
    category: 'text',
    source: 'api',
    prompt,
    params: { max_tokens: 32 },
    tokensReserved,
    etaSeconds: 2,
    delivery: null,
    sandbox: false,
    deadlineAt: new Date(Date.now() + 60_000),
  };
}

const completion = (generationId: number, cost: number): Extract<DeferredOutcome, { op: 'complete' }> => ({
  op: 'complete',
  generationId,
  text: 'hello',
  metadata: { promptTokens: 1, completionTokens: 2 },
  cost,
  processingMs: 5,
});

async function expectLedgerMatchesBalance(userId: number): Promise<void> {
  const b = await getBalance(db.dataSource, userId);
  expect(b.planTokens).toBeGreaterThanOrEqual(0);
  expect(b.bonusTokens).toBeGreaterThanOrEqual(0);
  expect(await ledgerTotals(db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

async function reservationsOf(userId: number): Promise<{ status: string; n: number }[]> {
  return db.dataSource.query(
    `SELECT status, count(*)::int AS n FROM token_reservations WHERE user_id = $1 GROUP BY status ORDER BY status`,
    [userId],
  );
}

describe.each([
  ['batched', true],
  ['one statement per call (BILLING_BATCH=off)', false],
])('%s', (_name, batch) => {
  test('200 parallel holds over four accounts admit exactly what each balance covers', async () => {
    const { billing, holdSql } = billingOf(batch);
    // 137 holds of 7 fit in 960 (959 = 137 * 7, one token left over); 20 of 10 fit in 200; 0 of 5 fit in 4.
    const accounts = [
      { id: await userWith(500, 460), amount: 7, fits: 137 },
      { id: await userWith(0, 200), amount: 10, fits: 20 },
      { id: await userWith(4, 0), amount: 5, fits: 0 },
      { id: await userWith(100_000, 0), amount: 3, fits: 50 },
    ];
    const wanted = [200, 50, 20, 50];
    // Round-robin over the accounts, so that every batch mixes them.
    const calls: (typeof accounts)[number][] = [];
    for (let round = 0; calls.length < 320; round++) accounts.forEach((a, k) => round < wanted[k] && calls.push(a));
    const results = await Promise.allSettled(calls.map((a) => billing.open(generation(a.id, a.amount))));

    for (const [k, a] of accounts.entries()) {
      const mine = results.filter((_, i) => calls[i] === a);
      const admitted = mine.filter((r) => r.status === 'fulfilled');
      const refused = mine.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(admitted).toHaveLength(Math.min(a.fits, wanted[k]));
      expect(refused).toHaveLength(wanted[k] - Math.min(a.fits, wanted[k]));
      for (const r of refused) {
        expect(r.reason).toBeInstanceOf(InsufficientTokensError);
        expect((r.reason as InsufficientTokensError).required).toBe(a.amount);
        expect((r.reason as InsufficientTokensError).available).toBeLessThan(a.amount);
      }
      await expectLedgerMatchesBalance(a.id);
      const pending = await db.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM generations WHERE user_id = $1 AND status = 'pending'`,
        [a.id],
      );
      expect(pending[0].n).toBe(admitted.length);
    }
    expect((await getBalance(db.dataSource, accounts[0].id)).total).toBe(1);
    expect((await getBalance(db.dataSource, accounts[1].id)).total).toBe(0);
    expect((await getBalance(db.dataSource, accounts[2].id)).total).toBe(4);
    expect((await getBalance(db.dataSource, accounts[3].id)).total).toBe(100_000 - 150);
    if (batch) expect(holdSql.statements).toBeLessThan(100);
    else expect(holdSql.statements).toBe(320);
  });

  test('200 parallel settlements each apply once, with the balance each one saw', async () => {
    const { billing, settleSql } = billingOf(batch);
    const id = await userWith(1000, 1000);
    const opened = await Promise.all(Array.from({ length: 200 }, () => billing.open(generation(id, 10))));
    expect((await getBalance(db.dataSource, id)).total).toBe(0);
    const costs = opened.map((_, i) => i % 12); // 10 and 11 are capped at the 10 reserved
    const before = settleSql.statements;
    const done = await Promise.all(opened.map((g, i) => billing.finish(completion(g.id, costs[i]))));
    const spent = costs.map((c) => Math.min(c, 10));
    expect(done.map((d) => d?.tokensSpent)).toEqual(spent);
    const total = spent.reduce((s, c) => s + c, 0);
    const b = await getBalance(db.dataSource, id);
    expect(b).toMatchObject({ total: 2000 - total, usedThisPeriod: total });
    // Each answer reports a balance that existed right after its own charge; the last one is the final balance.
    const reported = done.map((d) => d!.balance);
    reported.forEach((balance, i) => {
      expect(balance).toBeGreaterThanOrEqual(10 - spent[i]);
      expect(balance).toBeLessThanOrEqual(b.total);
    });
    expect(Math.max(...reported)).toBe(b.total);
    expect(await reservationsOf(id)).toEqual([{ status: 'settled', n: 200 }]);
    const completed = await db.dataSource.query<{ n: number; spent: number }[]>(
      `SELECT count(*)::int AS n, sum(tokens_spent)::int AS spent FROM generations WHERE user_id = $1 AND status = 'completed'`,
      [id],
    );
    expect(completed[0]).toEqual({ n: 200, spent: total });
    await expectLedgerMatchesBalance(id);
    if (batch) expect(settleSql.statements - before).toBeLessThan(100);
  });

  test('a settlement is single-shot: twice in one batch, again later, or a failure after it', async () => {
    const { billing } = billingOf(batch);
    const id = await userWith(0, 100);
    const g = await billing.open(generation(id, 40));
    const fail: DeferredOutcome = { op: 'fail', generationId: g.id, kind: 'upstream', message: 'x', processingMs: 1 };
    const first = await Promise.all([billing.finish(completion(g.id, 15)), billing.finish(completion(g.id, 15)), billing.finish(fail)]);
    const won = first.filter((t) => t !== null);
    expect(won).toHaveLength(1);
    // In one batch the first in arrival order wins; alone, whichever statement locks the row first.
    if (batch) expect(first[0]).toMatchObject({ tokensSpent: 15, balance: 85 });
    const spent = won[0]!.tokensSpent;
    expect(won[0]).toMatchObject({ tokensSpent: spent, balance: 100 - spent, row: { id: g.id, tokens_spent: spent } });
    expect(await billing.finish(completion(g.id, 15))).toBeNull();
    expect(await billing.finish(fail)).toBeNull();
    expect(await getBalance(db.dataSource, id)).toMatchObject({ total: 100 - spent, usedThisPeriod: spent });
    expect(await reservationsOf(id)).toEqual([{ status: spent > 0 ? 'settled' : 'released', n: 1 }]);
    await expectLedgerMatchesBalance(id);
  });

  test('one bad item does not break the others in its batch', async () => {
    const { billing } = billingOf(batch);
    const id = await userWith(0, 100);
    // A NUL character is refused by PostgreSQL: the batch statement fails, and each item is retried alone.
    const holds = await Promise.allSettled([
      billing.open(generation(id, 10)),
      billing.open(generation(id, 10, 'bad \u0000 prompt')),
      billing.open(generation(id, 10)),
    ]);
    expect(holds.map((h) => h.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((holds[1] as PromiseRejectedResult).reason).not.toBeInstanceOf(InsufficientTokensError);
    const [a, , c] = holds.map((h) => (h.status === 'fulfilled' ? h.value.id : 0));

    // An unknown generation and a NUL in a result: the others are still settled.
    const done = await Promise.allSettled([
      billing.finish(completion(a, 4)),
      billing.finish(completion(2_000_000_000, 4)),
      billing.finish({ ...completion(c, 4), text: 'bad \u0000 text' }),
    ]);
    expect(done[0]).toMatchObject({ status: 'fulfilled', value: { tokensSpent: 4, balance: expect.any(Number) } });
    expect(done[1]).toEqual({ status: 'fulfilled', value: null });
    expect(done[2].status).toBe('rejected');
    expect(await billing.finish(completion(c, 4))).toMatchObject({ tokensSpent: 4 });
    expect(await getBalance(db.dataSource, id)).toMatchObject({ total: 92, usedThisPeriod: 8 });
    await expectLedgerMatchesBalance(id);
  });
});

test('a finished generation comes back as its row: completed with its text and usage, or failed with its error', async () => {
  const { billing } = billingOf(true);
  const id = await userWith(0, 100);
  const [a, b] = await Promise.all([billing.open(generation(id, 10)), billing.open(generation(id, 10))]);
  const [done, failed] = await Promise.all([
    billing.finish(completion(a.id, 3)),
    billing.finish({ op: 'fail', generationId: b.id, kind: 'timeout', message: 'too slow', processingMs: 9 }),
  ]);
  expect(done!.row).toMatchObject({
    id: a.id,
    user_id: id,
    status: 'completed',
    result_text: 'hello',
    result_metadata: { promptTokens: 1, completionTokens: 2 },
    tokens_reserved: 10,
    tokens_spent: 3,
    processing_ms: 5,
    error: null,
    completed_at: expect.any(Date),
  });
  expect(failed!.row).toMatchObject({
    id: b.id,
    status: 'failed',
    error: 'too slow',
    error_kind: 'timeout',
    tokens_spent: 0,
    processing_ms: 9,
  });
  expect(failed!.tokensSpent).toBe(0);
  expect((await getBalance(db.dataSource, id)).total).toBe(97);
});

test('withdrawing an opened generation releases its hold in full and leaves no generation or lease behind', async () => {
  const { billing } = billingOf(true);
  const id = await userWith(3, 100);
  const g = await billing.open(generation(id, 10), { instanceId: 'inst-w', promptTokens: 1 });
  const kept = await billing.open(generation(id, 10));
  expect(await billing.withdraw(g.id)).toBe(true);
  expect(await billing.withdraw(g.id)).toBe(false);
  expect(await billing.finish(completion(g.id, 5))).toBeNull();
  expect(await getBalance(db.dataSource, id)).toMatchObject({ planTokens: 3, bonusTokens: 90, usedThisPeriod: 0 });
  expect(await db.dataSource.query('SELECT id FROM generations WHERE id = $1', [g.id])).toEqual([]);
  expect(await db.dataSource.query('SELECT 1 FROM generation_leases WHERE generation_id = $1', [g.id])).toEqual([]);
  expect(await reservationsOf(id)).toEqual([
    { status: 'released', n: 1 },
    { status: 'reserved', n: 1 },
  ]);
  // A generation that already finished is not withdrawn.
  await billing.finish(completion(kept.id, 4));
  expect(await billing.withdraw(kept.id)).toBe(false);
  expect(await getBalance(db.dataSource, id)).toMatchObject({ total: 99, usedThisPeriod: 4 });
  await expectLedgerMatchesBalance(id);
});

test('holds in one batch are admitted in arrival order while the balance covers them, plan tokens first', async () => {
  const { billing, holdSql } = billingOf(true);
  const id = await userWith(2, 3);
  const results = await Promise.allSettled([3, 4, 2, 1].map((amount) => billing.open(generation(id, amount))));
  expect(holdSql.statements).toBe(1);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
  expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ required: 4, available: 2 });
  expect((results[3] as PromiseRejectedResult).reason).toMatchObject({ required: 1, available: 0 });
  const held = await db.dataSource.query<{ plan_amount: number; bonus_amount: number }[]>(
    `SELECT plan_amount, bonus_amount FROM token_reservations WHERE user_id = $1 ORDER BY id`,
    [id],
  );
  expect(held).toEqual([
    { plan_amount: 2, bonus_amount: 1 },
    { plan_amount: 0, bonus_amount: 2 },
  ]);
  await expectLedgerMatchesBalance(id);
});

test('the lease is taken in the statement that opens the generation', async () => {
  const { billing, holdSql } = billingOf(true);
  const id = await userWith(0, 100);
  const [a, b] = await Promise.all([
    billing.open(generation(id, 5), { instanceId: 'inst-a', promptTokens: 7 }),
    billing.open(generation(id, 5)),
  ]);
  const single = await billingOf(false).billing.open(generation(id, 5), { instanceId: 'inst-b', promptTokens: 3 });
  expect(holdSql.statements).toBe(1);
  const leases = await db.dataSource.query<{ generation_id: number; instance_id: string; prompt_tokens: number }[]>(
    `SELECT generation_id, instance_id, prompt_tokens FROM generation_leases WHERE generation_id = ANY($1) ORDER BY generation_id`,
    [[a.id, b.id, single.id]],
  );
  expect(leases).toEqual([
    { generation_id: a.id, instance_id: 'inst-a', prompt_tokens: 7 },
    { generation_id: single.id, instance_id: 'inst-b', prompt_tokens: 3 },
  ]);
});

test('a user without a balance row is refused with nothing available, in a batch too', async () => {
  const { billing } = billingOf(true);
  const id = await userWith(0, 10);
  await db.dataSource.query('DELETE FROM balances WHERE user_id = $1', [id]);
  const results = await Promise.allSettled([billing.open(generation(id, 1)), billing.open(generation(id, 1))]);
  for (const r of results) expect((r as PromiseRejectedResult).reason).toMatchObject({ required: 1, available: 0 });
});
