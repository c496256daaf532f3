import { Client, Pool } from 'pg';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { metricsRegistry } from '../../src/core/ops/metrics';
import { DeferredOutcome } from '../../src/core/generations/settlement/billing-outbox';
import { readWalPosition, SettleJournal } from '../../src/core/generations/settlement/settle-journal';
import { createDataSource } from '../../src/db/data-source';
import { FastSql } from '../../src/db/fast-sql';
import { migratedDatabase, OwnPostgres, startOwnPostgres } from '../support/own-postgres';
import { OwnRedis, startOwnRedis } from '../support/own-redis';
import { waitUntil } from '../support/wait';
import { Instance, startInstance } from './instance';

// Settlements commit without waiting for the WAL flush (BILLING_SETTLE_COMMIT=async, the default); the settle
// journal keeps each until it is on disk. The WAL writer here sleeps 10 s, so a settlement stays in the server's
// buffers long enough for a kill -9 to lose it for certain: the journal must hand it to the outbox, and the
// replay must bill the answer once.

let pg: OwnPostgres;
let redis: OwnRedis;
let app: Instance;

const metric = async (name: string) => {
  const text = await metricsRegistry.getSingleMetricAsString(name);
  return Number(/ (\d+(?:\.\d+)?)$/m.exec(text)?.[1] ?? 0);
};

const dbQuery = async <T>(sql: string, params: unknown[] = []): Promise<T[]> => {
  const db = new Client({ connectionString: pg.urlOf('nebula') });
  await db.connect();
  try {
    return (await db.query(sql, params)).rows as T[];
  } finally {
    await db.end();
  }
};

beforeAll(async () => {
  pg = await startOwnPostgres({ wal_writer_delay: '10s' });
  await (await migratedDatabase(pg, 'nebula', 2)).destroy();
  // The counters in Redis: no commit of theirs flushes the WAL beside the settlement.
  redis = await startOwnRedis();
  app = await startInstance({ databaseUrl: pg.urlOf('nebula'), env: { REDIS_URL: redis.url } });
  // The test replays the outbox itself, after it has seen what the crash lost.
  app.services.outbox.stop();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await pg?.stop();
  await redis?.stop();
});

async function customer(name: string): Promise<{ userId: number; key: string }> {
  const ds: DataSource = app.services.ds;
  const user = await createUser(ds, new PlanDirectory(ds), { name, plan: 'vip', planTokens: 500, bonusTokens: 0 });
  return { userId: user.id, key: (await app.services.createApiKey(user.id, name)).key };
}

async function complete(key: string): Promise<{ balance: number }> {
  const res = await fetch(`${app.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'Tell me about tides' }] }),
  });
  expect(res.status).toBe(200);
  return { balance: Number(res.headers.get('x-token-balance')) };
}

test('a settlement on disk leaves the journal, and nothing goes to the outbox', async () => {
  const spilledBefore = await metric('nebula_settle_journal_spilled_total');
  const { key } = await customer('flushed');
  await complete(key);
  expect(await metric('nebula_settlements_not_on_disk')).toBe(1);
  // Any synchronous commit flushes the WAL written before it, the settlement's commit record included.
  await dbQuery(`CREATE TABLE flush_marker (id int)`);
  await waitUntil(async () => (await metric('nebula_settlements_not_on_disk')) === 0, 10_000, 'the journal saw the flush');
  expect(await metric('nebula_settle_journal_spilled_total')).toBe(spilledBefore);
  expect(await app.services.outbox.pending()).toBe(0);
});

test('kill -9 PostgreSQL after the answer, before the WAL flush: the settlement is lost, the outbox bills it once', async () => {
  const { userId, key } = await customer('crashed');
  const before = await getBalance(app.services.ds, userId);
  const { balance: told } = await complete(key);
  const spent = before.total - told;
  expect(spent).toBeGreaterThan(0);
  const [{ id }] = await dbQuery<{ id: number }>(`SELECT id FROM generations WHERE user_id = $1`, [userId]);

  await pg.crash();
  // The journal cannot read the WAL position any more: the settlement goes to the outbox file.
  await waitUntil(async () => (await app.services.outbox.pending()) === 1, 10_000, 'the settlement spilled to the outbox');
  expect(await metric('nebula_settlements_not_on_disk')).toBe(0);
  await pg.start();

  // The crash did lose it: the generation is back to pending, its hold in place, nothing charged.
  const [lost] = await dbQuery<{ status: string; tokens_spent: number }>(`SELECT status, tokens_spent FROM generations WHERE id = $1`, [
    id,
  ]);
  expect(lost).toEqual({ status: 'pending', tokens_spent: 0 });

  await waitUntil(async () => (await app.services.outbox.replay().catch(() => 0)) === 1, 20_000, 'the outbox replayed');
  const [billed] = await dbQuery<{ status: string; tokens_spent: number }>(`SELECT status, tokens_spent FROM generations WHERE id = $1`, [
    id,
  ]);
  expect(billed).toEqual({ status: 'completed', tokens_spent: spent });
  const [settles] = await dbQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_entries WHERE reference = $1 AND kind = 'settle'`, [
    `gen:${id}`,
  ]);
  expect(settles.n).toBe(1);
  const ds = createDataSource(pg.urlOf('nebula'), { poolSize: 2 });
  await ds.initialize();
  try {
    const after = await getBalance(ds, userId);
    expect(after.total).toBe(told);
    expect(await ledgerTotals(ds, userId)).toEqual({ plan: after.planTokens, bonus: after.bonusTokens });
  } finally {
    await ds.destroy();
  }
});

test('a server restarted between two readings: what waited goes to the outbox, though the new server answers', async () => {
  const pool = new Pool({ connectionString: pg.urlOf('nebula'), max: 1 });
  pool.on('error', () => undefined);
  const spilled: DeferredOutcome[] = [];
  const warnings: string[] = [];
  // No automatic readings: the test takes each one itself.
  const journal = new SettleJournal({
    probe: () => readWalPosition(new FastSql(pool)),
    spill: async (outcomes) => void spilled.push(...outcomes),
    log: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) }),
    tickMs: 3_600_000,
  });
  try {
    await journal.tickOnce();
    const outcome: DeferredOutcome = { op: 'fail', generationId: 1, kind: 'upstream', message: 'x', processingMs: 1 };
    // A write that waits in the WAL buffers (the WAL writer sleeps 10 s), then the journal's first reading of it.
    await dbQuery(`SET synchronous_commit = off; CREATE TABLE IF NOT EXISTS unflushed (id int); INSERT INTO unflushed VALUES (1)`);
    journal.record(outcome);
    await journal.tickOnce();
    expect(journal.waiting).toBe(1);

    await pg.halt();
    await pg.start();
    await journal.tickOnce();
    expect(spilled).toEqual([outcome]);
    // Read from the new server (not a failed reading): its start time told.
    expect(warnings.map((w) => JSON.parse(w).reason)).toEqual(['the database server restarted']);
    expect(journal.waiting).toBe(0);
  } finally {
    await journal.close(0);
    await pool.end();
  }
});
