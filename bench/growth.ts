import os from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { getBalance } from '../src/core/billing/ledger';
import { refillDuePlans } from '../src/core/billing/refill';
import { deleteExpiredResults } from '../src/core/generations/media/retention';
import type { ResultStorage } from '../src/core/media/storage';
import { dailyUsage, lastDays } from '../src/core/stats/daily-usage';
import { listHistory } from '../src/core/stats/history';
import { userStats } from '../src/core/stats/user-stats';
import { createDataSource } from '../src/db/data-source';
import { chatAtC1, type ChatTiming } from './lib/chat-at-c1';
import { GROWTH_HEADING, writeSection } from './lib/results-section';
import { BenchDatabase } from './lib/service-fixture';
import { percentile } from './lib/stats';

// `npm run bench:growth`: flat as the data grows (issue 42). Seeds its own database with set-based SQL
// (generate_series): 100,000 accounts, 10 million ledger rows, 2 million generations, the measured user with 50,000
// generations and 200,000 ledger rows (all times GROWTH_SCALE, default 1). Then, in one sitting, times the reads
// users wait on against the measured user while the database is empty, grown without the growth indexes of
// migrations 1764480000000 and 1764540000000 ("before") and grown with them ("after"); then the monthly refill of every account due at
// once, with reads timed beside it, and the retention job over the expired files. Prints a Markdown report.
// The reads are the core queries the routes run (the HTTP layer is the same whatever the table sizes).

export interface GrowthOptions {
  /** A PostgreSQL URL allowed to CREATE DATABASE: the bench works in a database of its own and drops it. */
  adminUrl: string;
  /** 1 = the sizes; 0.01 for a quick run. */
  scale: number;
  /** Timed runs of each read. */
  samples: number;
  /** Sync chat requests timed at c=1 through the running service, empty and grown (0 leaves the chat out). */
  chatRequests: number;
}

const ROOT = path.resolve(__dirname, '..', '..');

let SCALE = 1;
let SAMPLES = 40;
let ACCOUNTS = 0;
let LEDGER_ROWS = 0;
let GENERATIONS = 0;
let USER_GENERATIONS = 0;
let USER_LEDGER_ROWS = 0;

function size(options: GrowthOptions): void {
  const n = (full: number) => Math.max(10, Math.round(full * options.scale));
  SCALE = options.scale;
  SAMPLES = options.samples;
  ACCOUNTS = n(100_000);
  LEDGER_ROWS = n(10_000_000);
  GENERATIONS = n(2_000_000);
  USER_GENERATIONS = n(50_000);
  USER_LEDGER_ROWS = n(200_000);
}

const GROWTH_INDEXES = [
  [
    'generations_user_usage_idx',
    `generations (user_id, created_at) INCLUDE (category, model_slug, api_key_id, tokens_spent) WHERE status = 'completed'`,
  ],
  ['generations_user_status_idx', 'generations (user_id, status, id)'],
  ['generations_retention_idx', 'generations (expires_at) WHERE result_deleted_at IS NULL AND result_key IS NOT NULL'],
  ['users_next_refill_idx', 'users (next_refill_at)'],
  ['token_reservations_open_idx', `token_reservations (id) WHERE status = 'reserved'`],
  ['token_reservations_closed_idx', `token_reservations (updated_at) WHERE status <> 'reserved'`],
  [
    'generations_user_history_idx',
    'generations (user_id, id) INCLUDE (status, source, api_key_id, category, model_slug, created_at, user_deleted_at)',
  ],
] as const;
/** What migration 1764540000000 replaced: "before" has it, "after" does not. */
const OLD_HISTORY_INDEX = 'CREATE INDEX IF NOT EXISTS generations_user_created_idx ON generations (user_id, id)';

const log = (msg: string) => process.stderr.write(`[growth] ${msg}\n`);

type Read = [name: string, run: (ds: DataSource, userId: number) => Promise<unknown>];
const OPEN_RESERVATIONS = `SELECT count(*)::int AS n FROM token_reservations WHERE status = 'reserved'`;
const READS: Read[] = [
  ['balance', (ds, u) => getBalance(ds, u)],
  ['history (plain)', (ds, u) => listHistory(ds, u, { limit: 20 })],
  ['request log (door api, status failed)', (ds, u) => listHistory(ds, u, { limit: 20, door: 'api', status: 'failed' })],
  ['usage by day (30 days)', (ds, u) => dailyUsage(ds, u, { ...lastDays(30), groupBy: 'day' })],
  ['usage by model (30 days)', (ds, u) => dailyUsage(ds, u, { ...lastDays(30), groupBy: 'model' })],
  ['usage by key (30 days)', (ds, u) => dailyUsage(ds, u, { ...lastDays(30), groupBy: 'key' })],
  ['stats', (ds, u) => userStats(ds, u)],
  ['/metrics open reservations gauge', (ds) => ds.query(OPEN_RESERVATIONS)],
];

interface Timing {
  p50: number;
  p95: number;
}

async function time(run: () => Promise<unknown>, samples = SAMPLES): Promise<Timing> {
  await run();
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await run();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

async function measureReads(ds: DataSource, userId: number): Promise<Map<string, Timing>> {
  const out = new Map<string, Timing>();
  for (const [name, run] of READS) out.set(name, await time(() => run(ds, userId)));
  return out;
}

async function seed(ds: DataSource, measured: number): Promise<void> {
  const t = performance.now();
  await ds.query(
    `INSERT INTO users (name, next_refill_at, period_started_at, plan_slug)
     SELECT 'growth ' || g, now() + interval '10 days', now() - interval '20 days', (ARRAY['free','basic','pro','vip'])[1 + g % 4]
       FROM generate_series(1, $1) g`,
    [ACCOUNTS - 1],
  );
  await ds.query(
    `INSERT INTO balances (user_id, plan_tokens, bonus_tokens) SELECT id, 1000, 50 FROM users ON CONFLICT (user_id) DO NOTHING`,
  );
  const [{ lo, hi }] = await ds.query<{ lo: number; hi: number }[]>('SELECT min(id) AS lo, max(id) AS hi FROM users');
  log(`accounts: ${ACCOUNTS} (${Math.round(performance.now() - t)} ms)`);
  // Generations: the measured user's share, the rest spread over every account; the last 180 days; 10 % failed.
  const generations = async (count: number, userExpr: string) =>
    ds.query(
      `INSERT INTO generations (user_id, model_slug, category, status, source, tokens_reserved, tokens_spent, created_at,
                               completed_at, result_key, expires_at)
       SELECT ${userExpr}, (ARRAY['gpt-6-luna','claude-nova','gemini-flare','flux-pix'])[1 + g % 4],
              CASE WHEN g % 4 = 3 THEN 'image' ELSE 'text' END,
              CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'completed' END,
              (ARRAY['api','bot','v1','schedule'])[1 + (g / 4) % 4], 40, CASE WHEN g % 10 = 0 THEN 0 ELSE 17 END,
              now() - (g % 259200) * interval '1 minute', now() - (g % 259200) * interval '1 minute',
              CASE WHEN g % 4 = 3 THEN 'seed/' || g ELSE NULL END,
              CASE WHEN g % 4 = 3 THEN now() + interval '1 day' - (g % 259200) * interval '1 minute' ELSE NULL END
         FROM generate_series(1, $1) g`,
      [count],
    );
  await generations(USER_GENERATIONS, String(measured));
  await generations(GENERATIONS - USER_GENERATIONS, `${lo} + ((g::bigint * 7919) % (${hi} - ${lo} + 1))::int`);
  log(`generations: ${GENERATIONS} (${Math.round(performance.now() - t)} ms)`);
  const ledger = async (count: number, userExpr: string, tag: string) =>
    ds.query(
      `INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, created_at)
       SELECT ${userExpr}, CASE WHEN g % 2 = 0 THEN 'reserve' ELSE 'settle' END, 'seed:' || $2 || ':' || (g / 2), CASE WHEN g % 2 = 0 THEN -40 ELSE 23 END,
              0, now() - (g % 259200) * interval '1 minute'
         FROM generate_series(1, $1) g`,
      [count, tag],
    );
  await ledger(USER_LEDGER_ROWS, String(measured), 'measured');
  await ledger(LEDGER_ROWS - USER_LEDGER_ROWS, `${lo} + ((g::bigint * 7919) % (${hi} - ${lo} + 1))::int`, 'spread');
  log(`ledger rows: ${LEDGER_ROWS} (${Math.round(performance.now() - t)} ms)`);
  // Closed reservations of the generations (as the service leaves them), a few still open; the chat timed on the
  // empty database left its own.
  await ds.query(
    `INSERT INTO token_reservations (reference, user_id, plan_amount, bonus_amount, status, charged)
     SELECT 'gen:' || id, user_id, 40, 0, CASE WHEN id % 1000 = 0 THEN 'reserved' ELSE 'settled' END, 17 FROM generations
     ON CONFLICT DO NOTHING`,
  );
  await ds.query('VACUUM ANALYZE');
  log(`seeded in ${Math.round((performance.now() - t) / 1000)} s`);
}

async function dropGrowthIndexes(ds: DataSource): Promise<void> {
  for (const [name] of GROWTH_INDEXES) await ds.query(`DROP INDEX IF EXISTS ${name}`);
  await ds.query(OLD_HISTORY_INDEX);
  await ds.query('ANALYZE');
}

async function createGrowthIndexes(ds: DataSource): Promise<number> {
  const t = performance.now();
  for (const [name, definition] of GROWTH_INDEXES) await ds.query(`CREATE INDEX IF NOT EXISTS ${name} ON ${definition}`);
  await ds.query('DROP INDEX IF EXISTS generations_user_created_idx');
  await ds.query('VACUUM ANALYZE');
  return performance.now() - t;
}

/** Reads timed in a loop while `job` runs; returns the job's time and the reads' p95. */
async function besideReads(
  ds: DataSource,
  userId: number,
  job: () => Promise<number>,
): Promise<{ ms: number; rows: number; readP95: number; reads: number }> {
  let running = true;
  const ms: number[] = [];
  const reader = (async () => {
    while (running) {
      const t = performance.now();
      await getBalance(ds, userId);
      await dailyUsage(ds, userId, { ...lastDays(7), groupBy: 'day' });
      ms.push(performance.now() - t);
    }
  })();
  const t = performance.now();
  const rows = await job();
  const took = performance.now() - t;
  running = false;
  await reader;
  ms.sort((a, b) => a - b);
  return { ms: took, rows, readP95: percentile(ms, 95), reads: ms.length };
}

const noStorage: ResultStorage = { delete: async () => undefined } as unknown as ResultStorage;
const f = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(2));

/** The c=1 chat line: the measured user's sync /v1/chat/completions, empty and grown (target: at most +10 %). */
function chatLines(empty: ChatTiming | undefined, grown: ChatTiming | undefined): string[] {
  if (!empty || !grown) return [];
  const ratio = grown.p50 / empty.p50;
  return [
    '| chat at c=1, through the service (sync /v1/chat/completions, the measured user) | empty p50 / p95 ms | grown p50 / p95 ms | grown / empty p50 | at most +10 % |',
    '|---|---:|---:|---:|---|',
    `| ${empty.ok} + ${grown.ok} answers (${empty.failed + grown.failed} failed) | ${f(empty.p50)} / ${f(empty.p95)} | ${f(grown.p50)} / ${f(grown.p95)} | ` +
      `${ratio.toFixed(2)}x | ${ratio <= 1.1 ? 'met' : 'MISSED'} |`,
    '',
  ];
}

/** Seeds, measures and drops its database; returns the report (Markdown). */
export async function runGrowth(options: GrowthOptions): Promise<string> {
  size(options);
  const db = await BenchDatabase.create(options.adminUrl);
  const ds = createDataSource(db.url, { poolSize: 4 });
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
    const [{ id: measured }] = await ds.query<{ id: number }[]>(
      `INSERT INTO users (name, next_refill_at, period_started_at, plan_slug, plan_expires_at)
       VALUES ('measured', now() + interval '10 days', now(), 'elite', now() + interval '30 days') RETURNING id`,
    );
    // Elite: no hourly or daily limit, so the timed chat requests are never refused.
    await ds.query('INSERT INTO balances (user_id, plan_tokens, bonus_tokens) VALUES ($1, 1000, 100000000)', [measured]);
    const empty = await measureReads(ds, measured);
    const chat = async (): Promise<ChatTiming | undefined> =>
      options.chatRequests > 0 ? chatAtC1(ROOT, db.url, measured, options.chatRequests) : undefined;
    const emptyChat = await chat();
    log('empty measured; seeding');
    await dropGrowthIndexes(ds);
    await seed(ds, measured);
    const before = await measureReads(ds, measured);
    const indexMs = await createGrowthIndexes(ds);
    const after = await measureReads(ds, measured);
    const grownChat = await chat();
    log('reads measured; refill and retention');

    await ds.query(`UPDATE users SET next_refill_at = now() - interval '1 minute'`);
    await ds.query('VACUUM ANALYZE users');
    const refill = await besideReads(ds, measured, () => refillDuePlans(ds, { budgetMs: 3_600_000 }));
    await ds.query(`UPDATE generations SET expires_at = now() - interval '1 minute' WHERE result_key IS NOT NULL AND id % 20 = 3`);
    await ds.query('VACUUM ANALYZE generations');
    const retention = await besideReads(ds, measured, () => deleteExpiredResults(ds, noStorage, { budgetMs: 3_600_000 }));

    const lines = [
      `### Growth run ${new Date().toISOString()} (GROWTH_SCALE=${SCALE})`,
      '',
      `${ACCOUNTS.toLocaleString('en')} accounts, ${LEDGER_ROWS.toLocaleString('en')} ledger rows, ${GENERATIONS.toLocaleString('en')} generations;` +
        ` the measured user ${USER_GENERATIONS.toLocaleString('en')} generations and ${USER_LEDGER_ROWS.toLocaleString('en')} ledger rows.` +
        ` ${SAMPLES} samples each, c=1. Load average ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' / ')} on ${os.cpus().length} cores.`,
      '',
      '| read (c=1) | empty p50 / p95 ms | grown, before p50 / p95 ms | grown, after p50 / p95 ms | after / empty p50 |',
      '|---|---:|---:|---:|---:|',
      ...READS.map(([name]) => {
        const e = empty.get(name)!;
        const b = before.get(name)!;
        const a = after.get(name)!;
        return `| ${name} | ${f(e.p50)} / ${f(e.p95)} | ${f(b.p50)} / ${f(b.p95)} | ${f(a.p50)} / ${f(a.p95)} | ${(a.p50 / e.p50).toFixed(2)}x |`;
      }),
      '',
      ...chatLines(emptyChat, grownChat),
      `Growth indexes built in ${(indexMs / 1000).toFixed(1)} s (plain CREATE INDEX here; the migration builds them CONCURRENTLY).`,
      '',
      '| job | rows | time | rows/s | reads beside it (balance + 7-day usage) p95 |',
      '|---|---:|---:|---:|---:|',
      `| monthly refill, every account due at once | ${refill.rows} | ${(refill.ms / 1000).toFixed(1)} s | ${Math.round(refill.rows / (refill.ms / 1000))} | ${f(refill.readP95)} ms (${refill.reads} reads) |`,
      `| retention (selection and marking; file deletes stubbed) | ${retention.rows} | ${(retention.ms / 1000).toFixed(1)} s | ${Math.round(retention.rows / (retention.ms / 1000))} | ${f(retention.readP95)} ms (${retention.reads} reads) |`,
    ];
    return lines.join('\n') + '\n';
  } finally {
    await ds.destroy();
    // GROWTH_KEEP_DB=1 keeps the grown database for EXPLAIN (its name goes to stderr); drop it by hand after.
    if (process.env.GROWTH_KEEP_DB === '1') log(`kept database ${db.name}`);
    else await db.drop();
  }
}

if (require.main === module) {
  runGrowth({
    adminUrl: process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    scale: Number(process.env.GROWTH_SCALE ?? 1),
    samples: Number(process.env.GROWTH_SAMPLES ?? 40),
    chatRequests: Number(process.env.GROWTH_CHAT_REQUESTS ?? 1000),
  }).then(
    (report) => {
      process.stdout.write(report);
      if (Number(process.env.GROWTH_SCALE ?? 1) === 1) writeSection(path.join(ROOT, 'bench', 'results.md'), GROWTH_HEADING, report);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
