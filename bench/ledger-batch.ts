import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PlanDirectory } from '../src/core/accounts/plans';
import { createUser } from '../src/core/accounts/users';
import { getBalance, ledgerTotals } from '../src/core/billing/ledger';
import { GenerationBilling } from '../src/core/generations/settlement/billing-batches';
import { NewGeneration } from '../src/core/generations/settlement/lifecycle';
import { createDataSource } from '../src/db/data-source';
import { FastSql } from '../src/db/fast-sql';
import { cpuMs } from './lib/child';
import { BenchDatabase } from './lib/service-fixture';
import { summarize } from './lib/stats';

// `npm run bench:ledger`: the chat answer's two billing statements alone (open = hold + generation row + lease on
// the async-commit pool; finish = settle + completion, synchronous commit), reserve+settle pairs in a closed loop
// at concurrency 1 and 64, against one account and against 64 accounts, with group commit on and off
// (BILLING_BATCH=off) and with the asynchronous settle (BILLING_SETTLE_COMMIT=async, the default; its journal
// reads the WAL position about every 25 ms and is left out here), in rotating order
// within one run. Prints pairs/s, latency of a pair, and CPU per pair of
// this process and of its PostgreSQL backends (from /proc); writes bench/ledger-batch-results.md.

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = num('LEDGER_BENCH_SECONDS', 5);
const ROUNDS = num('LEDGER_BENCH_ROUNDS', 3);
const CONCURRENCY = num('LEDGER_BENCH_CONCURRENCY', 64);
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RESERVE = 40;
const COST = 17;

const log = (msg: string) => process.stderr.write(`[ledger-bench] ${msg}\n`);

interface Case {
  batch: boolean;
  /** BILLING_SETTLE_COMMIT: `async` settles on the async-commit pool (the default; the service adds the settle journal). */
  settle: 'sync' | 'async';
  accounts: number;
  concurrency: number;
}

interface Sample {
  pairs: number;
  seconds: number;
  latencies: number[];
  nodeCpuMs: number;
  pgCpuMs: number;
}

const label = (c: Case) =>
  `c=${c.concurrency}, ${c.accounts === 1 ? '1 account' : `${c.accounts} accounts`}, batching ${c.batch ? 'on' : 'off'}` +
  (c.settle === 'async' ? ', settle async' : '');

function generation(userId: number): NewGeneration {
  return {
    userId,
    modelSlug: 'gpt-6-luna',
    category: 'text',
    source: 'api',
    prompt: 'Say hello',
    params: { max_tokens: 32, messages: 1 },
    tokensReserved: RESERVE,
    etaSeconds: 2,
    delivery: null,
    sandbox: false,
    deadlineAt: new Date(Date.now() + 30 * 60_000),
  };
}

async function backendCpu(db: BenchDatabase): Promise<Map<number, number>> {
  const pids = await db.backendPids();
  return new Map(pids.map((pid) => [pid, cpuMs(pid)]));
}

async function measure(
  db: BenchDatabase,
  billing: GenerationBilling,
  users: number[],
  concurrency: number,
  seconds: number,
): Promise<Sample> {
  const pgBefore = await backendCpu(db);
  const nodeBefore = process.cpuUsage();
  const latencies: number[] = [];
  const started = performance.now();
  const until = started + seconds * 1000;
  let next = 0;
  const worker = async () => {
    while (performance.now() < until) {
      const userId = users[next++ % users.length];
      const t0 = performance.now();
      const g = await billing.open(generation(userId), { instanceId: 'ledger-bench', promptTokens: 3 });
      const done = await billing.finish({
        op: 'complete',
        generationId: g.id,
        text: 'Hello there, how can I help?',
        metadata: { promptTokens: 9, completionTokens: 8 },
        cost: COST,
        processingMs: 1,
      });
      if (!done) throw new Error(`generation ${g.id} was not settled`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const node = process.cpuUsage(nodeBefore);
  const pgAfter = await backendCpu(db);
  let pgCpuMs = 0;
  for (const [pid, after] of pgAfter) if (Number.isFinite(after)) pgCpuMs += after - (pgBefore.get(pid) ?? 0);
  return { pairs: latencies.length, seconds: elapsed, latencies, nodeCpuMs: (node.user + node.system) / 1000, pgCpuMs };
}

async function checkBilling(db: BenchDatabase, ds: Parameters<typeof getBalance>[0], users: number[]): Promise<string[]> {
  const problems: string[] = [];
  for (const id of users) {
    const b = await getBalance(ds, id);
    const sums = await ledgerTotals(ds, id);
    if (sums.plan !== b.planTokens || sums.bonus !== b.bonusTokens) problems.push(`user ${id}: ledger ${JSON.stringify(sums)} vs balance`);
  }
  const rows = await db.query<{ open: string; unsettled: string; wrong: string }>(
    `SELECT (SELECT count(*) FROM token_reservations WHERE status = 'reserved') AS open,
            (SELECT count(*) FROM generations WHERE status <> 'completed') AS unsettled,
            (SELECT count(*) FROM generations WHERE tokens_spent <> $1) AS wrong`,
    [COST],
  );
  const r = rows[0];
  if (Number(r.open) + Number(r.unsettled) + Number(r.wrong) > 0)
    problems.push(`open holds / unsettled / wrong charge: ${JSON.stringify(r)}`);
  return problems;
}

async function main(): Promise<void> {
  const db = await BenchDatabase.create(ADMIN_URL);
  const ds = createDataSource(db.url, { poolSize: 20 });
  const holds = FastSql.asyncCommitPool(db.url);
  try {
    await ds.initialize();
    await ds.runMigrations();
    const plans = new PlanDirectory(ds);
    const users: number[] = [];
    for (let i = 0; i < 64; i++) {
      users.push((await createUser(ds, plans, { name: `ledger-bench-${i}`, plan: 'elite', planTokens: 1_000_000_000 })).id);
    }
    const sql = FastSql.of(ds);
    const billingOf = (c: Case) =>
      new GenerationBilling({
        holdSql: holds.sql,
        sql: c.settle === 'async' ? holds.sql : sql,
        batch: c.batch,
        maxInFlight: num('LEDGER_BENCH_MAX_IN_FLIGHT', 2),
        maxBatch: num('LEDGER_BENCH_MAX_BATCH', 64),
      });
    const cases: Case[] = [];
    for (const [concurrency, accounts] of [
      [1, 1],
      [CONCURRENCY, 1],
      [CONCURRENCY, 64],
    ]) {
      cases.push({ batch: false, settle: 'sync', accounts, concurrency });
      cases.push({ batch: true, settle: 'sync', accounts, concurrency });
      cases.push({ batch: true, settle: 'async', accounts, concurrency });
    }
    log('warming up (both pools connected, statements prepared)');
    for (const c of cases) await measure(db, billingOf(c), users.slice(0, c.accounts), c.concurrency, 1);
    const samples = new Map<Case, Sample[]>(cases.map((c) => [c, []]));
    const load = [fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]];
    for (let round = 0; round < ROUNDS; round++) {
      const order = cases.map((_, i) => cases[(i + round) % cases.length]);
      for (const c of order) {
        const s = await measure(db, billingOf(c), users.slice(0, c.accounts), c.concurrency, SECONDS);
        samples.get(c)!.push(s);
        log(`round ${round + 1}: ${label(c)}: ${(s.pairs / s.seconds).toFixed(0)} pairs/s`);
      }
    }
    load.push(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
    const problems = await checkBilling(db, ds, users);

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const lines = [
      '# Ledger micro-bench: reserve + settle pairs',
      '',
      `- Date: ${new Date().toISOString()}`,
      `- Command: \`npm run bench:ledger\` (LEDGER_BENCH_SECONDS=${SECONDS}, LEDGER_BENCH_ROUNDS=${ROUNDS}, LEDGER_BENCH_CONCURRENCY=${CONCURRENCY}, LEDGER_BENCH_MAX_IN_FLIGHT=${num('LEDGER_BENCH_MAX_IN_FLIGHT', 2)}, LEDGER_BENCH_MAX_BATCH=${num('LEDGER_BENCH_MAX_BATCH', 64)})`,
      `- Machine: nproc=${os.cpus().length}, 1-minute load average ${load[0]} before, ${load[1]} after`,
      '- A pair = `billing.open` (hold + pending generation + lease, async-commit pool) then `billing.finish`',
      '  (settle + completion, synchronous commit). Rounds rotate the order of the cases; figures are medians of the rounds.',
      '',
      '| case | pairs/s | pair p50 ms | pair p99 ms | Node CPU ms/pair | PG backends CPU ms/pair |',
      '|---|---:|---:|---:|---:|---:|',
    ];
    for (const c of cases) {
      const ss = samples.get(c)!;
      const all = ss.flatMap((s) => s.latencies);
      const lat = summarize(all);
      lines.push(
        `| ${label(c)} | ${median(ss.map((s) => s.pairs / s.seconds)).toFixed(0)} | ${lat.p50.toFixed(2)} | ${lat.p99.toFixed(2)} | ` +
          `${median(ss.map((s) => s.nodeCpuMs / s.pairs)).toFixed(3)} | ${median(ss.map((s) => s.pgCpuMs / s.pairs)).toFixed(3)} |`,
      );
    }
    lines.push(
      '',
      `Billing check: ${problems.length === 0 ? 'every pair held, settled and charged once; ledger sum = balance for all 64 accounts' : `**MISMATCH**: ${problems.join('; ')}`}`,
    );
    const report = lines.join('\n') + '\n';
    process.stdout.write(report);
    fs.writeFileSync(path.resolve(__dirname, '..', '..', 'bench', 'ledger-batch-results.md'), report);
    if (problems.length > 0) process.exitCode = 1;
  } finally {
    await holds.close();
    if (ds.isInitialized) await ds.destroy();
    await db.drop();
  }
}

main().catch((err) => {
  log((err as Error).stack ?? String(err));
  process.exit(1);
});
