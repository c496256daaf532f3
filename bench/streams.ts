import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Child, cpuMs, freePort, RssSampler } from './lib/child';
import { intEnv } from './lib/env';
import { chatBody, Outcome, sendOnce, Target } from './lib/http-load';
import {
  BenchDatabase,
  BenchUser,
  checkBilling,
  clearRateCounters,
  createUserWithKey,
  redisReachable,
  serviceEnv,
} from './lib/service-fixture';
import { percentile } from './lib/stats';

// `npm run bench:streams`: many streams opened at once on one instance (issue 42). The mock waits 20 ms before each
// first byte and then sends a frame every second, so every stream stays open for several seconds; STREAMS_COUNT
// (5000) streams are opened evenly within STREAMS_OPEN_SECONDS (5). Reports how many were accepted (HTTP 200),
// completed ([DONE] with the answer text) and billed (SQL), the first-byte times, the service's peak RSS, its
// event-loop delay (prom-client's histogram on /metrics) and /health/live while they run, and the database's load
// (transactions and CPU of its backends). Exits 1 when one was not accepted, not completed or not billed exactly.

const ROOT = path.resolve(__dirname, '..', '..');
const COUNT = intEnv('STREAMS_COUNT', 5000);
const OPEN_SECONDS = intEnv('STREAMS_OPEN_SECONDS', 5);
const ACCOUNTS = intEnv('STREAMS_ACCOUNTS', 8);
const CHUNK_DELAY_MS = intEnv('STREAMS_CHUNK_DELAY_MS', 1000);
/** How long a client waits in silence before it gives up (a stream's head comes with its first event). */
const CLIENT_TIMEOUT_MS = intEnv('STREAMS_CLIENT_TIMEOUT_MS', 60_000);
const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const log = (msg: string) => process.stderr.write(`[streams] ${msg}\n`);

async function text(url: string, token: string): Promise<string> {
  return (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).text();
}

function metric(body: string, name: string): number {
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(body)?.[1] ?? NaN);
}

/**
 * Connections the kernel completed that the service has not accepted yet (the listening socket's queue, from
 * /proc/net/tcp; -1 when unreadable). Node 20's libuv accepts one connection per turn of the event loop, so a busy
 * loop leaves them here, unseen by the service.
 */
function acceptQueue(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  try {
    for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hex}`) && f[3] === '0A') return parseInt(f[4]!.split(':')[1]!, 16);
    }
  } catch {
    // not Linux
  }
  return -1;
}

async function dbLoad(db: BenchDatabase): Promise<{ commits: number; pids: number[] }> {
  const [row] = await db.query<{ c: string }>('SELECT xact_commit AS c FROM pg_stat_database WHERE datname = current_database()');
  return { commits: Number(row?.c ?? NaN), pids: await db.backendPids() };
}

async function main(): Promise<void> {
  const children: Child[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-streams-'));
  const redisUrl = (await redisReachable('127.0.0.1', 6379)) ? 'redis://127.0.0.1:6379/14' : undefined;
  const db = await BenchDatabase.create(PG_ADMIN);
  const users: BenchUser[] = [];
  try {
    const mockArgs = ['dist/bench/mock-upstream.js', '--first-byte-ms=20', `--chunk-delay-ms=${CHUNK_DELAY_MS}`];
    const mock = Child.start('mock', process.execPath, mockArgs, { env: { PATH: process.env.PATH }, cwd: ROOT });
    children.push(mock);
    const mockUrl = (await mock.waitForOutput(/\{"url":"([^"]+)"\}/, 10_000))[1];
    const port = await freePort();
    const token = crypto.randomBytes(16).toString('hex');
    // Every stream holds a vendor connection while it runs: the pool is sized to the streams (VENDOR_POOL_SIZE).
    const env = serviceEnv(
      process.env,
      { port, dataDir, databaseUrl: db.url, mockUrl, redisUrl },
      { METRICS_TOKEN: token, VENDOR_POOL_SIZE: String(COUNT + 100) },
    );
    for (let i = 0; i < ACCOUNTS; i++) users.push(await createUserWithKey(ROOT, env, 'elite', 100_000_000));
    const profArgs = process.env.STREAMS_CPU_PROF_DIR
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.STREAMS_CPU_PROF_DIR)}`]
      : [];
    const nodeArgs = (process.env.STREAMS_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
    const service = Child.start('service', process.execPath, [...nodeArgs, ...profArgs, 'dist/src/main.js'], { env, cwd: ROOT });
    children.push(service);
    const base = `http://127.0.0.1:${port}`;
    await service.waitForHttp(`${base}/health`, 60_000, 200);
    const rssIdleKb = service.memoryKb('VmRSS');
    const sampler = new RssSampler([service]);
    sampler.start();

    const targets: Target[] = users.map((u, i) => ({
      name: `account ${i + 1}`,
      url: `${base}/v1/chat/completions`,
      headers: { authorization: `Bearer ${u.key}` },
    }));
    // A fresh connection per stream, as many clients would open them.
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const body = chatBody(true);
    const loadBefore = os.loadavg()[0];
    const before = await dbLoad(db);
    const pgCpuBefore = before.pids.map(cpuMs);
    const svcCpuBefore = cpuMs(service.pid);
    const startedAt = Date.now();

    // /health/live every 100 ms while the streams run: what the event loop's delay means for a probe.
    const probes: number[] = [];
    let probing = true;
    let acceptQueuePeak = -1;
    const probeLoop = (async () => {
      while (probing) {
        acceptQueuePeak = Math.max(acceptQueuePeak, acceptQueue(port));
        const t = process.hrtime.bigint();
        const ok = await fetch(`${base}/health/live`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) probes.push(Number(process.hrtime.bigint() - t) / 1e6);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const outcomes: Promise<Outcome>[] = [];
    const perStreamMs = (OPEN_SECONDS * 1000) / COUNT;
    for (let i = 0; i < COUNT; i++) {
      const due = startedAt + i * perStreamMs;
      const wait = due - Date.now();
      if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
      outcomes.push(sendOnce(targets[i % targets.length]!, agent, body, true, CLIENT_TIMEOUT_MS));
    }
    const openedMs = Date.now() - startedAt;
    log(`${COUNT} streams opened in ${(openedMs / 1000).toFixed(1)} s; waiting for them to end`);
    const results = await Promise.all(outcomes);
    const allDoneMs = Date.now() - startedAt;
    probing = false;
    await probeLoop;
    sampler.stop();
    const metricsAfter = await text(`${base}/metrics`, token);
    const after = await dbLoad(db);
    const pgCpu = after.pids
      .map(cpuMs)
      .reduce((s, v, i) => s + (Number.isFinite(v) && Number.isFinite(pgCpuBefore[i]) ? v - pgCpuBefore[i]! : 0), 0);
    const svcCpu = cpuMs(service.pid) - svcCpuBefore;
    const loadAfter = os.loadavg()[0];

    const accepted = results.filter((r) => r.status === 200).length;
    const completed = results.filter((r) => r.ok).length;
    const statuses: Record<string, number> = {};
    for (const r of results) statuses[String(r.status)] = (statuses[String(r.status)] ?? 0) + 1;
    const problems = [...new Set(results.filter((r) => !r.ok).map((r) => r.problem ?? `HTTP ${r.status}`))].slice(0, 5);
    const firstByte = results
      .filter((r) => r.ok)
      .map((r) => r.firstByteMs)
      .sort((a, b) => a - b);
    const probeSorted = [...probes].sort((a, b) => a - b);
    const sortedOf = (pick: (r: Outcome) => number | undefined) =>
      results
        .map(pick)
        .filter((v): v is number => v !== undefined && Number.isFinite(v))
        .sort((a, b) => a - b);
    const spread = (v: number[]) =>
      `${percentile(v, 50).toFixed(0)} / ${percentile(v, 95).toFixed(0)} / ${(v.at(-1) ?? NaN).toFixed(0)} ms`;
    const connected = sortedOf((r) => r.connectMs);
    const heads = sortedOf((r) => r.headMs);
    const lag = (name: string) => metric(metricsAfter, name) * 1000;
    const okPerUser = users.map((_, i) => results.filter((r, j) => j % users.length === i && r.ok).length);
    const billing = [];
    for (let i = 0; i < users.length; i++) billing.push(await checkBilling(db, users[i]!.id, okPerUser[i]!));
    const billed = billing.every((b) => b.ok);
    const seconds = allDoneMs / 1000;

    const lines = [
      `# ${COUNT} streams opened within ${OPEN_SECONDS} s on one instance`,
      '',
      `- Date: ${new Date().toISOString()}; command: \`npm run bench:streams\` (STREAMS_COUNT=${COUNT}, STREAMS_OPEN_SECONDS=${OPEN_SECONDS}, ` +
        `STREAMS_ACCOUNTS=${ACCOUNTS}, STREAMS_CHUNK_DELAY_MS=${CHUNK_DELAY_MS}, STREAMS_CLIENT_TIMEOUT_MS=${CLIENT_TIMEOUT_MS})`,
      `- Load: 1-minute load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after (nproc ${os.availableParallelism()})`,
      `- Mock: first byte after 20 ms, then a frame every ${CHUNK_DELAY_MS} ms (7 frames with usage and [DONE]); service VENDOR_POOL_SIZE=${COUNT + 100}`,
      '',
      '| figure | value |',
      '|---|---:|',
      `| streams opened (seconds to open them all) | ${COUNT} (${(openedMs / 1000).toFixed(1)} s) |`,
      `| accepted (HTTP 200) | ${accepted} |`,
      `| completed ([DONE] and the answer text) | ${completed} |`,
      `| statuses | ${Object.entries(statuses)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ')} |`,
      `| billed exactly once (SQL, ${users.length} accounts) | ${billed ? 'yes' : 'MISMATCH'} |`,
      `| TCP handshake done (kernel) p50 / p95 / max | ${spread(connected)} |`,
      `| connections waiting to be accepted by the service (kernel queue, peak) | ${acceptQueuePeak} |`,
      `| response head (sent with the first event) p50 / p95 / max | ${spread(heads)} |`,
      `| first byte p50 / p95 / max | ${percentile(firstByte, 50).toFixed(0)} / ${percentile(firstByte, 95).toFixed(0)} / ${(firstByte.at(-1) ?? NaN).toFixed(0)} ms |`,
      `| all ended after | ${seconds.toFixed(1)} s |`,
      `| service RSS idle → peak | ${(rssIdleKb / 1024).toFixed(0)} → ${(sampler.peakKb(service) / 1024).toFixed(0)} MB |`,
      `| event-loop delay p50 / p99 / max (prom-client, since start) | ${lag('nodejs_eventloop_lag_p50_seconds').toFixed(1)} / ${lag('nodejs_eventloop_lag_p99_seconds').toFixed(1)} / ${lag('nodejs_eventloop_lag_max_seconds').toFixed(1)} ms |`,
      `| /health/live p50 / p95 / max while streaming (${probes.length} probes) | ${percentile(probeSorted, 50).toFixed(1)} / ${percentile(probeSorted, 95).toFixed(1)} / ${(probeSorted.at(-1) ?? NaN).toFixed(1)} ms |`,
      `| database: transactions committed (per second) | ${after.commits - before.commits} (${((after.commits - before.commits) / seconds).toFixed(0)}/s) |`,
      `| database: CPU of the service's backends / service CPU | ${(pgCpu / 1000).toFixed(1)} s / ${(svcCpu / 1000).toFixed(1)} s over ${seconds.toFixed(1)} s |`,
      '',
      ...(problems.length > 0 ? ['Failures, e.g.:', '', ...problems.map((p) => `- ${p.slice(0, 200)}`), ''] : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    fs.writeFileSync(path.join(ROOT, 'bench', 'streams-results.md'), `${lines.join('\n')}\n`);
    if (accepted < COUNT || completed < COUNT || !billed) process.exitCode = 1;
  } finally {
    await Promise.all(children.map((c) => c.stop().catch(() => undefined)));
    if (redisUrl)
      await clearRateCounters(
        redisUrl,
        users.map((u) => u.id),
      ).catch(() => undefined);
    await db.drop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`streams bench failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
