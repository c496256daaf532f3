import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Child, cpuMs, freePort } from './lib/child';
import { renderProfile, summarizeProfile } from './lib/cpuprofile';
import { runLoad, Target } from './lib/http-load';
import { BenchDatabase, BenchUser, clearRateCounters, createUserWithKey, redisReachable, serviceEnv } from './lib/service-fixture';
import { summarize } from './lib/stats';
import { stepsBetween, stepTotals, StepTotals } from './lib/time-breakdown';
import crypto from 'node:crypto';

// `node dist/bench/profile.js [sync|stream] [--prof]`: this service alone behind the mock, short runs for
// direction while changing the hot path (the side-by-side figures with Portkey come from `npm run bench`).
// Prints added latency at concurrency 1, req/s and CPU per request (service + its PostgreSQL backends) at
// concurrency 64, medians over rounds. `--prof`: the service's self time by package, file and function from a
// --cpu-prof profile. `PROFILE_BASELINE=<checkout>`: a second service built from that checkout runs in
// alternating rounds, and the figures are also given as ratios to it (robust on a busy machine).

const ROOT = path.resolve(__dirname, '..', '..');
const args = process.argv.slice(2);
const mode = args.includes('stream') ? 'stream' : 'sync';
const stream = mode === 'stream';
const profile = args.includes('--prof');
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const LATENCY = num('PROFILE_LATENCY_REQUESTS', 1000);
const SECONDS = num('PROFILE_SECONDS', 3);
const ROUNDS = num('PROFILE_ROUNDS', 4);
const CONCURRENCY = num('PROFILE_CONCURRENCY', 64);
const ACCOUNTS = num('PROFILE_ACCOUNTS', 1);
const BASELINE = process.env.PROFILE_BASELINE;
/** The mock waits this long before each answer's first byte (the 20 ms case of issue 42). */
const FIRST_BYTE_MS = num('PROFILE_FIRST_BYTE_MS', 0);
const METRICS_TOKEN = crypto.randomBytes(16).toString('hex');

/** `PROFILE_SERVICE_ENV='A=1;B=2'` as an object. */
function extraEnv(): Record<string, string> {
  const pairs = (process.env.PROFILE_SERVICE_ENV ?? '').split(';').filter((p) => p.includes('='));
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

const log = (msg: string) => process.stderr.write(`[profile] ${msg}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

interface Service {
  label: string;
  child: Child;
  db: BenchDatabase;
  users: BenchUser[];
  targets: Target[];
  profDir: string;
  metricsUrl: string;
  /** The service's hold and settlement waits over its concurrency-1 rounds. */
  steps: StepTotals[];
  latency: number[];
  rounds: { rps: number; svc: number; pg: number }[];
}

async function startService(root: string, label: string, mockUrl: string, dataDir: string, redisUrl?: string): Promise<Service> {
  const db = await BenchDatabase.create(process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const port = await freePort();
  const own = path.join(dataDir, label);
  const profDir = path.join(own, 'prof');
  const env = serviceEnv(
    process.env,
    { port, dataDir: own, databaseUrl: db.url, mockUrl, redisUrl },
    // Extra environment for the service under test only, e.g. PROFILE_SERVICE_ENV='NODE_OPTIONS=--max-semi-space-size=2'.
    { METRICS_TOKEN, ...(label === 'this' ? extraEnv() : {}) },
  );
  const users: BenchUser[] = [];
  for (let i = 0; i < ACCOUNTS; i++) users.push(await createUserWithKey(root, env, 'elite', 100_000_000));
  const profArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  const child = Child.start(label, process.execPath, [...profArgs, 'dist/src/main.js'], { env, cwd: root });
  await child.waitForHttp(`http://127.0.0.1:${port}/health`, 60_000, 200);
  const targets = users.map((u) => ({
    name: label,
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: { authorization: `Bearer ${u.key}` },
  }));
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  return { label, child, db, users, targets, profDir, metricsUrl, steps: [], latency: [], rounds: [] };
}

async function throughputRound(s: Service): Promise<void> {
  const pgPids = await s.db.backendPids();
  const before = { svc: cpuMs(s.child.pid), pg: pgPids.map(cpuMs) };
  const r = await runLoad(s.targets, { concurrency: CONCURRENCY, maxRequests: 5_000_000, maxMs: SECONDS * 1000, stream });
  const svc = cpuMs(s.child.pid) - before.svc;
  const pg = pgPids.map(cpuMs).reduce((sum, v, i) => sum + (v - before.pg[i] || 0), 0);
  if (r.failed > 0) log(`${s.label}: ${r.failed} failed (${r.firstProblem})`);
  s.rounds.push({ rps: r.ok / (r.elapsedMs / 1000), svc: svc / r.ok, pg: pg / r.ok });
}

async function main(): Promise<void> {
  const children: Child[] = [];
  const services: Service[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-profile-'));
  const redisUrl = (await redisReachable('127.0.0.1', 6379)) ? 'redis://127.0.0.1:6379/14' : undefined;
  try {
    const mockArgs = ['dist/bench/mock-upstream.js', `--first-byte-ms=${FIRST_BYTE_MS}`];
    const mock = Child.start('mock', process.execPath, mockArgs, { env: { PATH: process.env.PATH }, cwd: ROOT });
    children.push(mock);
    const mockUrl = (await mock.waitForOutput(/\{"url":"([^"]+)"\}/, 10_000))[1];
    const direct: Target = { name: 'mock', url: `${mockUrl}/v1/chat/completions`, headers: { authorization: 'Bearer x' } };
    if (BASELINE) services.push(await startService(path.resolve(BASELINE), 'baseline', mockUrl, dataDir, redisUrl));
    services.push(await startService(ROOT, 'this', mockUrl, dataDir, redisUrl));
    children.push(...services.map((s) => s.child));

    const loadBefore = os.loadavg()[0];
    log(`warm-up (${mode}, ${ACCOUNTS} account(s))`);
    for (const s of services) {
      await runLoad(s.targets, { concurrency: 1, maxRequests: 300, maxMs: 30_000, stream });
      await runLoad(s.targets, { concurrency: CONCURRENCY, maxRequests: 2000, maxMs: 10_000, stream });
    }
    await runLoad(direct, { concurrency: 1, maxRequests: 300, maxMs: 30_000, stream });

    const mockLatency: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const r = await runLoad(direct, { concurrency: 1, maxRequests: LATENCY / ROUNDS, maxMs: 60_000, stream });
      mockLatency.push(...r.outcomes.filter((o) => o.ok).map((o) => o.totalMs));
      for (const s of round % 2 ? [...services].reverse() : services) {
        const steps = async () =>
          stepTotals(await (await fetch(s.metricsUrl, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
        const before = await steps();
        const sr = await runLoad(s.targets, { concurrency: 1, maxRequests: LATENCY / ROUNDS, maxMs: 60_000, stream });
        s.steps.push(stepsBetween(before, await steps()));
        s.latency.push(...sr.outcomes.filter((o) => o.ok).map((o) => o.totalMs));
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of round % 2 ? [...services].reverse() : services) await throughputRound(s);
    }

    const m = summarize(mockLatency);
    const figures = services.map((s) => {
      const l = summarize(s.latency);
      const mean = (k: keyof StepTotals) => {
        const sum = s.steps.reduce((t, x) => t + x[k].sum, 0);
        const count = s.steps.reduce((t, x) => t + x[k].count, 0);
        return count > 0 ? (sum / count) * 1000 : NaN;
      };
      return {
        label: s.label,
        mean: l.mean - m.mean,
        hold: mean('hold'),
        settle: mean('settle'),
        p50: l.p50 - m.p50,
        p99: l.p99 - m.p99,
        rps: median(s.rounds.map((r) => r.rps)),
        svc: median(s.rounds.map((r) => r.svc)),
        pg: median(s.rounds.map((r) => r.pg)),
        rss: s.child.memoryKb('VmRSS') / 1024,
        hwm: s.child.memoryKb('VmHWM') / 1024,
      };
    });
    for (const f of figures) {
      log(
        `${f.label.padEnd(8)} c=1 added p50 ${f.p50.toFixed(3)} ms, p99 ${f.p99.toFixed(3)} ms | c=${CONCURRENCY}: ${f.rps.toFixed(0)} req/s, ` +
          `CPU/request service ${f.svc.toFixed(3)} + PG ${f.pg.toFixed(3)} ms | RSS ${f.rss.toFixed(0)} MB (peak ${f.hwm.toFixed(0)} MB)`,
      );
      log(
        `${f.label.padEnd(8)} c=1 added mean ${f.mean.toFixed(3)} ms; waits (means): hold ${f.hold.toFixed(3)} ms, ` +
          `settlement ${f.settle.toFixed(3)} ms (mock first byte after ${FIRST_BYTE_MS} ms)`,
      );
    }
    if (figures.length === 2) {
      const [b, t] = figures;
      const ratio = (x: number, y: number) => (x / y).toFixed(2);
      log(
        `this/baseline: added p50 ${ratio(t.p50, b.p50)}, req/s ${ratio(t.rps, b.rps)}, CPU service ${ratio(t.svc, b.svc)}, ` +
          `PG ${ratio(t.pg, b.pg)}, service+PG ${ratio(t.svc + t.pg, b.svc + b.pg)}`,
      );
    }
    log(`load ${loadBefore.toFixed(2)} -> ${os.loadavg()[0].toFixed(2)} (mock p50 ${m.p50.toFixed(3)} ms)`);

    for (const s of services) await s.child.stop();
    if (profile) {
      for (const s of services) {
        const file = fs.existsSync(s.profDir) && fs.readdirSync(s.profDir).find((f) => f.endsWith('.cpuprofile'));
        if (!file) continue;
        const keep = path.join(os.tmpdir(), `nebula-profile-${s.label}-${mode}.cpuprofile`);
        fs.copyFileSync(path.join(s.profDir, file), keep);
        if (s.label === 'this') process.stdout.write(`${renderProfile(summarizeProfile(keep, 45))}\n`);
        log(`profile of ${s.label} kept at ${keep}`);
      }
    }
  } finally {
    await Promise.all(children.map((c) => c.stop().catch(() => undefined)));
    const ids = services.flatMap((s) => s.users.map((u) => u.id));
    if (redisUrl) await clearRateCounters(redisUrl, ids).catch(() => undefined);
    for (const s of services) await s.db.drop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`profile failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
