import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { PlanDirectory } from '../src/core/accounts/plans';
import { createUser } from '../src/core/accounts/users';
import { createPendingGeneration, markCompleted, NewGeneration } from '../src/core/generations/settlement/lifecycle';
import { createDataSource } from '../src/db/data-source';
import { FastSql } from '../src/db/fast-sql';
import { intEnv } from './lib/env';
import { BenchDatabase } from './lib/service-fixture';
import { summarize } from './lib/stats';

// `npm run bench:billing-floor`: the least time the database can add to one billed answer on this machine. One
// connection, one statement at a time (concurrency 1), on a fresh migrated database: a bare round trip, a bare
// INSERT with and without waiting for the WAL flush, then the service's own hold and settlement statements (an
// API key's hold, as /v1 makes it) with each commit mode. A billed answer pays one hold and one settlement in
// sequence, the hold's WAL flush included (it is what makes a delivered answer billable after a crash).
// Writes bench/billing-floor-results.md.

const ROUNDS = intEnv('FLOOR_REQUESTS', 3000);
const WARMUP = 300;

const log = (msg: string) => process.stderr.write(`[billing-floor] ${msg}\n`);

async function timed(n: number, step: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n + WARMUP; i++) {
    const t = process.hrtime.bigint();
    await step();
    if (i >= WARMUP) samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return samples;
}

async function main(): Promise<void> {
  const db = await BenchDatabase.create(process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const ds = createDataSource(db.url, { poolSize: 2 });
  const pools: Pool[] = [];
  const pool = (asyncCommit: boolean) => {
    const p = new Pool({ connectionString: db.url, max: 1, ...(asyncCommit ? { options: '-c synchronous_commit=off' } : {}) });
    pools.push(p);
    return new FastSql(p);
  };
  try {
    await ds.initialize();
    await ds.runMigrations();
    const user = await createUser(ds, new PlanDirectory(ds), { name: 'floor', plan: 'elite', planTokens: 1_000_000_000, bonusTokens: 0 });
    const [key] = (await ds.query(
      `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, key_last4) VALUES ($1, 'floor', 'floor-hash', 'nb_floor', 'abcd') RETURNING id`,
      [user.id],
    )) as { id: number }[];
    await ds.query('CREATE TABLE floor_rows (id serial PRIMARY KEY, v int)');
    const generation = (): NewGeneration => ({
      userId: user.id,
      modelSlug: 'gpt-6-luna',
      category: 'text',
      source: 'v1',
      prompt: 'Say hello in one short sentence.',
      params: { max_tokens: 32, messages: 1 },
      tokensReserved: 64,
      etaSeconds: 2,
      delivery: null,
      sandbox: false,
      deadlineAt: new Date(Date.now() + 30 * 60_000),
      apiKeyId: key.id,
    });
    const lease = { instanceId: 'floor', promptTokens: 9 };
    const answer = {
      resultKey: null,
      resultMime: null,
      resultText: 'Hello there!',
      metadata: { promptTokens: 9, completionTokens: 4 },
      seed: null,
      durationSeconds: null,
    };

    const sync = pool(false);
    const async_ = pool(true);
    const rows: { what: string; samples: number[] }[] = [];
    const add = async (what: string, step: () => Promise<unknown>) => {
      log(what);
      rows.push({ what, samples: await timed(ROUNDS, step) });
    };
    await add('round trip (SELECT 1)', () => sync.query('SELECT 1'));
    await add('INSERT of one row, waiting for the WAL flush', () => sync.query('INSERT INTO floor_rows (v) VALUES (1)'));
    await add('INSERT of one row, without waiting', () => async_.query('INSERT INTO floor_rows (v) VALUES (1)'));
    // Holds and their settlements alternate, as answers make them; each kind is timed on its own.
    for (const [label, holdSql, settleSql] of [
      ['hold waiting for the flush, settlement without (the service)', sync, async_],
      ['hold without waiting, settlement waiting', async_, sync],
      ['neither waiting (no crash guarantee)', async_, async_],
    ] as const) {
      const holds: number[] = [];
      const settles: number[] = [];
      for (let i = 0; i < ROUNDS + WARMUP; i++) {
        let t = process.hrtime.bigint();
        const { id } = await createPendingGeneration(holdSql, generation(), lease);
        const held = Number(process.hrtime.bigint() - t) / 1e6;
        t = process.hrtime.bigint();
        await markCompleted(settleSql, id, answer, 13, 1, null);
        const settled = Number(process.hrtime.bigint() - t) / 1e6;
        if (i >= WARMUP) {
          holds.push(held);
          settles.push(settled);
        }
      }
      log(label);
      rows.push({ what: `${label}: hold`, samples: holds });
      rows.push({ what: `${label}: settlement`, samples: settles });
      rows.push({ what: `${label}: both in sequence`, samples: holds.map((h, i) => h + settles[i]) });
    }

    const load = fs.readFileSync('/proc/loadavg', 'utf8').trim();
    const report = [
      '# The database floor of one billed answer',
      '',
      `- Date: ${new Date().toISOString()}`,
      `- Command: \`npm run bench:billing-floor\` (FLOOR_REQUESTS=${ROUNDS}, after ${WARMUP} warm-up statements each)`,
      `- Machine: nproc=${os.availableParallelism()}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}; load (/proc/loadavg) at the end: ${load}`,
      "- One pool connection, one statement at a time; the hold is the service's own statement for an API key's chat answer",
      '',
      '| statement | p50 ms | p99 ms |',
      '|---|---:|---:|',
      ...rows.map(({ what, samples }) => {
        const s = summarize(samples);
        return `| ${what} | ${s.p50.toFixed(3)} | ${s.p99.toFixed(3)} |`;
      }),
      '',
    ].join('\n');
    fs.writeFileSync(path.resolve(__dirname, '..', '..', 'bench', 'billing-floor-results.md'), report);
    process.stdout.write(`${report}\n`);
  } finally {
    await Promise.all(pools.map((p) => p.end()));
    if (ds.isInitialized) await ds.destroy();
    await db.drop();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`billing-floor failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
