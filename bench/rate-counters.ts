import Redis from 'ioredis';
import { CounterModes, markerOf } from '../src/core/limits/counter-mode';
import { FailoverCounterStore } from '../src/core/limits/failover-store';
import { PostgresCounterStore } from '../src/core/limits/postgres-store';
import { RedisCounterStore } from '../src/core/limits/redis-store';
import { HitResult, RateWindow } from '../src/core/limits/types';
import { createDataSource } from '../src/db/data-source';
import { FastSql } from '../src/db/fast-sql';
import { BenchDatabase, redisReachable } from './lib/service-fixture';
import { median, summarize } from './lib/stats';

// `npm run bench:counters`: what one rate-limit count costs, per store, in a closed loop in this process:
// - `redis script alone`: the Lua hit and nothing else (what a count cost before the write-through);
// - `redis + write-through`: the Lua hit, then the admitted count written to PostgreSQL (group-committed,
//   synchronous commit) before the request is admitted: what a count costs now;
// - `postgres`: the PostgreSQL counters alone (no Redis, or during a fallback).
// Latency at concurrency 1 (p50, p99), counts/s at concurrency 64 on one account and on 64 accounts, medians over
// rounds in rotating order. Needs PostgreSQL (BENCH_PG_ADMIN_URL, default the tests' server) and Redis at
// 127.0.0.1:6379 (its database 14, counters under a prefix of this run, deleted at the end).

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const LATENCY_COUNTS = num('COUNTERS_BENCH_LATENCY', 2000);
const SECONDS = num('COUNTERS_BENCH_SECONDS', 3);
const ROUNDS = num('COUNTERS_BENCH_ROUNDS', 3);
const CONCURRENCY = 64;
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// Limits far above what a run counts: every count is admitted, so every one is written through.
const WINDOWS: RateWindow[] = [
  { name: 'hour', seconds: 3600, limit: 1_000_000_000 },
  { name: 'day', seconds: 86400, limit: 1_000_000_000 },
];

const log = (msg: string) => process.stderr.write(`[counters-bench] ${msg}\n`);

type Hit = (key: string) => Promise<HitResult>;

async function latency(hit: Hit, key: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < LATENCY_COUNTS / ROUNDS; i++) {
    const started = performance.now();
    await hit(key);
    out.push(performance.now() - started);
  }
  return out;
}

async function throughput(hit: Hit, keys: string[]): Promise<number> {
  const deadline = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      while (performance.now() < deadline) {
        await hit(keys[worker % keys.length]);
        done += 1;
      }
    }),
  );
  return done / SECONDS;
}

async function main(): Promise<void> {
  if (!(await redisReachable('127.0.0.1', 6379))) throw new Error('Redis at 127.0.0.1:6379 does not answer');
  const db = await BenchDatabase.create(ADMIN_URL);
  const ds = createDataSource(db.url, { poolSize: 20 });
  const redis = new Redis('redis://127.0.0.1:6379/14', { maxRetriesPerRequest: 1 });
  const prefix = `bench:rl:${process.pid}:`;
  try {
    await ds.initialize();
    await ds.runMigrations();
    const pg = new PostgresCounterStore(ds);
    const raw = new RedisCounterStore(redis, prefix);
    const modes = new CounterModes(ds, FastSql.of(ds));
    const failover = new FailoverCounterStore(raw, pg, modes);
    await failover.hit('warm', WINDOWS, Date.now()); // attaches Redis (restores it, sets its marker)
    const marker = markerOf(await modes.read());
    const stores: { name: string; hit: Hit }[] = [
      {
        name: 'redis script alone',
        hit: async (key) => {
          const r = await raw.hit(key, WINDOWS, Date.now(), marker);
          if (r === 'stale') throw new Error('marker lost');
          return r;
        },
      },
      { name: 'redis + write-through', hit: (key) => failover.hit(key, WINDOWS, Date.now()) },
      { name: 'postgres', hit: (key) => pg.hit(key, WINDOWS, Date.now()) },
    ];
    const results = new Map(stores.map((s) => [s.name, { lat: [] as number[], one: [] as number[], many: [] as number[] }]));
    const accounts = Array.from({ length: CONCURRENCY }, (_, i) => `u:bench-${i}`);
    for (const s of stores) await latency(s.hit, 'u:warm-up');
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...stores].reverse() : stores;
      for (const s of order) {
        const r = results.get(s.name)!;
        r.lat.push(...(await latency(s.hit, `u:c1-${s.name}`)));
        r.one.push(await throughput(s.hit, ['u:one']));
        r.many.push(await throughput(s.hit, accounts));
        log(`round ${round + 1}: ${s.name}`);
      }
    }
    const lines = [
      `| store | c=1 p50 | c=1 p99 | c=${CONCURRENCY}, one account | c=${CONCURRENCY}, ${CONCURRENCY} accounts |`,
      '|---|---:|---:|---:|---:|',
    ];
    for (const s of stores) {
      const r = results.get(s.name)!;
      const l = summarize(r.lat);
      lines.push(
        `| ${s.name} | ${l.p50.toFixed(2)} ms | ${l.p99.toFixed(2)} ms | ${median(r.one).toFixed(0)}/s | ${median(r.many).toFixed(0)}/s |`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    const keys = await redis.keys(`${prefix}*`).catch(() => [] as string[]);
    if (keys.length > 0) await redis.del(...keys).catch(() => undefined);
    redis.disconnect();
    await ds.destroy().catch(() => undefined);
    await db.drop().catch(() => undefined);
  }
}

main().catch((err: Error) => {
  process.stderr.write(`counters bench failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
