import crypto from 'node:crypto';
import { Pool } from 'pg';
import pino from 'pino';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { Queryable } from '../../src/core/billing/queryable';
import { GenerationBilling } from '../../src/core/generations/settlement/billing-batches';
import { DeferredOutcome } from '../../src/core/generations/settlement/billing-outbox';
import { NewGeneration } from '../../src/core/generations/settlement/lifecycle';
import { readWalPosition, SettleJournal } from '../../src/core/generations/settlement/settle-journal';
import { FastSql } from '../../src/db/fast-sql';
import { countingSql } from '../support/counting-sql';
import { asAdmin, createTestDatabase, TestDatabase } from '../support/databases';

// A managed PostgreSQL may refuse to tell its WAL position (no privilege, or not supported there). The settle journal
// then cannot follow settlements to disk: it says so once, and the settlements wait for the flush themselves, as
// with BILLING_SETTLE_COMMIT=sync. Here the refusal is real: a role without EXECUTE on pg_current_wal_flush_lsn().

let db: TestDatabase;
const role = `ng_nowal_${crypto.randomBytes(4).toString('hex')}`;
const password = crypto.randomBytes(12).toString('hex');
const pools: { end: () => Promise<void> }[] = [];

function poolAs(url: string, opts: { asyncCommit?: boolean } = {}): FastSql {
  const pool = new Pool({ connectionString: url, max: 2, ...(opts.asyncCommit ? { options: '-c synchronous_commit=off' } : {}) });
  pool.on('error', () => undefined);
  pools.push(pool);
  return new FastSql(pool);
}

beforeAll(async () => {
  db = await createTestDatabase();
  await asAdmin(db.url, `CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
  await asAdmin(db.url, `REVOKE EXECUTE ON FUNCTION pg_current_wal_flush_lsn() FROM PUBLIC`);
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db.drop();
  await asAdmin(process.env.DATABASE_URL!, `DROP ROLE IF EXISTS ${role}`);
});

function urlAs(user: string, pass: string): string {
  const u = new URL(db.url);
  u.username = user;
  u.password = pass;
  return u.toString();
}

function journalOn(probeSql: Queryable, logLines: string[], spilled: DeferredOutcome[]): SettleJournal {
  return new SettleJournal({
    probe: () => readWalPosition(probeSql),
    spill: async (outcomes) => void spilled.push(...outcomes),
    log: pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) }),
    tickMs: 3_600_000,
  });
}

async function pendingGeneration(billing: GenerationBilling): Promise<{ userId: number; id: number }> {
  const plans = new PlanDirectory(db.dataSource);
  const user = await createUser(db.dataSource, plans, { name: 'J', plan: 'basic', planTokens: 100, bonusTokens: 0 });
  const generation: NewGeneration = {
    userId: user.id,
    modelSlug: 'gpt-6-luna',
    category: 'text',
    source: 'api',
    prompt: 'hi',
    params: { max_tokens: 32 },
    tokensReserved: 40,
    etaSeconds: 2,
    delivery: null,
    sandbox: false,
    deadlineAt: new Date(Date.now() + 60_000),
  };
  return { userId: user.id, id: (await billing.open(generation)).id };
}

const completion = (generationId: number): DeferredOutcome => ({
  op: 'complete',
  generationId,
  text: 'hello',
  metadata: { promptTokens: 1, completionTokens: 2 },
  cost: 15,
  processingMs: 5,
});

test('PostgreSQL refuses the WAL position to a role without the privilege (SQLSTATE 42501)', async () => {
  const err = await readWalPosition(poolAs(urlAs(role, password))).catch((e: unknown) => e);
  expect((err as { code?: string }).code).toBe('42501');
});

test.each([false, true])('refused: the journal says so once, and settlements wait for the flush (batched: %s)', async (batch) => {
  const logLines: string[] = [];
  const spilled: DeferredOutcome[] = [];
  const journal = journalOn(poolAs(urlAs(role, password)), logLines, spilled);
  const holdSql = countingSql(poolAs(db.url));
  const settleSql = countingSql(poolAs(db.url, { asyncCommit: true }));
  const billing = new GenerationBilling({ holdSql, sql: settleSql, journal, batch });
  try {
    await journal.tickOnce();
    expect(journal.refused).toBe(true);
    await journal.tickOnce();
    const errors = logLines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);
    expect(errors.map((l) => l.msg)).toEqual([
      'the settle journal cannot follow the WAL: settlements now wait for the disk flush (as BILLING_SETTLE_COMMIT=sync)',
    ]);

    const { userId, id } = await pendingGeneration(billing);
    const holdStatements = holdSql.statements;
    const done = await billing.finish(completion(id));
    expect(done?.tokensSpent).toBe(15);
    expect(holdSql.statements).toBe(holdStatements + 1);
    expect(settleSql.statements).toBe(0);
    // Committed with the flush: nothing for the journal to keep, nothing spilled.
    expect(journal.waiting).toBe(0);
    expect(spilled).toEqual([]);
    const balance = await getBalance(db.dataSource, userId);
    expect(balance.total).toBe(85);
    expect(await ledgerTotals(db.dataSource, userId)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
  } finally {
    await journal.close(0);
  }
});

test('a server that tells its WAL position keeps settlements off the flush, followed by the journal', async () => {
  const journal = journalOn(poolAs(db.url), [], []);
  const holdSql = countingSql(poolAs(db.url));
  const settleSql = countingSql(poolAs(db.url, { asyncCommit: true }));
  const billing = new GenerationBilling({ holdSql, sql: settleSql, journal, batch: false });
  try {
    await journal.tickOnce();
    expect(journal.refused).toBe(false);
    const { id } = await pendingGeneration(billing);
    await billing.finish(completion(id));
    expect(settleSql.statements).toBe(1);
    expect(journal.waiting).toBe(1);
  } finally {
    await journal.close(0);
  }
});

test('an outcome recorded after the refusal (its statement already ran without the flush) goes to the outbox', async () => {
  const spilled: DeferredOutcome[] = [];
  const journal = journalOn(poolAs(urlAs(role, password)), [], spilled);
  await journal.tickOnce();
  journal.record(completion(1));
  expect(spilled).toEqual([completion(1)]);
  expect(journal.waiting).toBe(0);
  await journal.close(0);
});
