import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { createDataSource } from '../../src/db/data-source';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { migratedDatabase, OwnPostgres, startOwnPostgres } from '../support/own-postgres';
import { OwnRedis, startOwnRedis } from '../support/own-redis';
import { eventually } from '../support/wait';
import { Instance, readSse, startInstance } from './instance';

// Issue 34, finding 8: PostgreSQL down AND the disk refusing the billing outbox (full): 6 fully delivered answers
// ended failed, free ("could not be deferred", then the lease sweep released them). The outbox now keeps what the
// disk refuses in memory, the answers keep their leases fresh until it is applied, and a lease that recorded nothing
// delivered is not taken for abandoned before its instance had its chance: every answer the client received to
// its end is billed exactly once after the database is back.

let pg: OwnPostgres;
let ds: DataSource;
let app: Instance;
let redis: OwnRedis;

beforeAll(async () => {
  pg = await startOwnPostgres();
  ds = await migratedDatabase(pg, 'nebula', 5);
  // ~30 pieces at 150 ms: every stream is still open when the database dies just after they started.
  // The counters in Redis: no commit of theirs flushes the WAL beside the holds.
  redis = await startOwnRedis();
  // The disk is gone for the outbox: where its directory should be, a file.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-no-disk-'));
  fs.writeFileSync(path.join(dataDir, 'outbox'), 'not a directory');
  app = await startInstance({
    databaseUrl: pg.urlOf('nebula'),
    dataDir,
    env: { REDIS_URL: redis.url },
    handlers: { openai: createOpenAiSandbox({ chunkDelayMs: 150 }) },
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await ds?.destroy().catch(() => undefined);
  await pg?.stop();
  await redis?.stop();
});

interface Received {
  userId: number;
  /** The generation_end event, when the stream reached its end. */
  end?: { generation_id: number; status: string; tokens_spent: number };
  status: number;
}

test('kill -9 PostgreSQL with the outbox disk gone, during 16 streams: every answer received to its end is billed once', async () => {
  // API keys, not sign-ins: sign-in is limited per client address.
  const users = await Promise.all(
    Array.from({ length: 16 }, async (_, i) => {
      const user = await createUser(ds, new PlanDirectory(ds), { name: `crash-${i}`, plan: 'vip', planTokens: 500, bonusTokens: 0 });
      return { userId: user.id, token: (await app.services.createApiKey(user.id, 'crash')).key };
    }),
  );
  let started = 0;
  const streams: Promise<Received>[] = users.map(async (u, i) => {
    const res = await fetch(`${app.baseUrl}/api/v2/generate/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', prompt: `Tell me about tides, number ${i}` }),
    });
    if (res.status !== 200) return { userId: u.userId, status: res.status };
    started += 1;
    const events = await readSse(res);
    const end = events.find((e) => e.event === 'generation_end')?.data as Received['end'];
    return { userId: u.userId, status: res.status, end };
  });

  // The crash comes right after the streams' heads went out: holds committed without a flush would be lost now.
  await eventually(() => (started >= 8 ? true : undefined), 20_000, 'streams started');
  await pg.crash();
  await ds.destroy();
  const received = await Promise.all(streams);
  const delivered = received.filter((r) => r.end?.status === 'completed');
  expect(delivered.length).toBeGreaterThanOrEqual(8);
  for (const r of delivered) expect(r.end!.tokens_spent).toBeGreaterThan(0);
  expect(await app.services.outbox.pending()).toBeGreaterThanOrEqual(delivered.length);

  await pg.start();
  ds = createDataSource(pg.urlOf('nebula'), { poolSize: 5 });
  await ds.initialize();
  // The lease sweep of any instance may run the moment the database is back, before this one replays its outcomes.
  await app.services.recoverAbandoned(false);
  await eventually(
    async () => {
      await app.services.outbox.replay().catch(() => undefined);
      return (await app.services.outbox.pending()) === 0 ? true : undefined;
    },
    30_000,
    'the outbox replayed',
  );

  const db = new Client({ connectionString: pg.urlOf('nebula') });
  await db.connect();
  try {
    for (const r of delivered) {
      const id = r.end!.generation_id;
      const rows = await db.query<{ user_id: number; status: string; tokens_spent: number }>(
        'SELECT user_id, status, tokens_spent FROM generations WHERE id = $1',
        [id],
      );
      // The generation the client was told about, of this client, completed and charged what the client was told.
      expect(rows.rows).toEqual([{ user_id: r.userId, status: 'completed', tokens_spent: r.end!.tokens_spent }]);
      const settles = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ledger_entries WHERE reference = $1 AND kind = 'settle'`,
        [`gen:${id}`],
      );
      expect(settles.rows[0].n).toBe(1);
    }
    for (const u of users) {
      const charged = await db.query<{ n: number; spent: number }>(
        `SELECT count(*)::int AS n, COALESCE(sum(tokens_spent), 0)::int AS spent FROM generations
          WHERE user_id = $1 AND status = 'completed'`,
        [u.userId],
      );
      const mine = delivered.filter((r) => r.userId === u.userId);
      // Nothing charged that the client did not receive, nothing twice.
      expect(charged.rows[0]).toEqual({ n: mine.length, spent: mine.reduce((s, r) => s + r.end!.tokens_spent, 0) });
      const balance = await getBalance(ds, u.userId);
      expect(await ledgerTotals(ds, u.userId)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
    }
  } finally {
    await db.end();
  }
  expect(app.logs.some((l) => l.includes('the disk refused the billing outbox'))).toBe(true);
  console.log(`kill -9 PostgreSQL, no outbox disk: ${delivered.length} of 16 streams delivered to their end, all billed once`);
}, 120_000);
