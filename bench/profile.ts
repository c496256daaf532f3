import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Child, cpuMs, freePort } from './lib/child';
import { summarizeProfile, renderProfile } from './lib/cpuprofile';
import { runLoad, Target } from './lib/http-load';
import { BenchDatabase, BenchUser, clearRateCounters, createUserWithKey, redisReachable, serviceEnv } from './lib/service-fixture';
import { summarize } from './lib/stats';

// `node dist/bench/profile.js [sync|stream] [--prof]`: this service alone behind the mock, a short run for
// direction while changing the hot path (the side-by-side figures come from `npm run bench`). Prints added
// latency at concurrency 1, req/s and CPU per request at concurrency 64, and with --prof the service's
// self time by package, file and function from a --cpu-prof profile of the whole run.

const ROOT = path.resolve(__dirname, '..', '..');
const args = process.argv.slice(2);
const mode = args.includes('stream') ? 'stream' : 'sync';
const stream = mode === 'stream';
const profile = args.includes('--prof');
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const LATENCY = num('PROFILE_LATENCY_REQUESTS', 1000);
const SECONDS = num('PROFILE_SECONDS', 8);
const CONCURRENCY = num('PROFILE_CONCURRENCY', 64);
const ACCOUNTS = num('PROFILE_ACCOUNTS', 1);

const log = (msg: string) => process.stderr.write(`[profile] ${msg}\n`);

async function main(): Promise<void> {
  const children: Child[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-profile-'));
  const profDir = path.join(dataDir, 'prof');
  const db = await BenchDatabase.create(process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const redisUrl = (await redisReachable('127.0.0.1', 6379)) ? 'redis://127.0.0.1:6379/14' : undefined;
  const users: BenchUser[] = [];
  try {
    const mock = Child.start('mock', process.execPath, ['dist/bench/mock-upstream.js'], { env: { PATH: process.env.PATH }, cwd: ROOT });
    children.push(mock);
    const mockUrl = (await mock.waitForOutput(/\{"url":"([^"]+)"\}/, 10_000))[1];
    const port = await freePort();
    const env = serviceEnv(process.env, {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      OPENAI_BASE_URL: `${mockUrl}/v1`,
      OPENAI_API_KEY: 'x',
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    });
    for (let i = 0; i < ACCOUNTS; i++) users.push(await createUserWithKey(ROOT, env, 'elite', 100_000_000));
    const profArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
    const service = Child.start('service', process.execPath, [...profArgs, 'dist/src/main.js'], { env, cwd: ROOT });
    children.push(service);
    await service.waitForHttp(`http://127.0.0.1:${port}/health`, 60_000, 200);
    const targets: Target[] = users.map((u) => ({
      name: 'service',
      url: `http://127.0.0.1:${port}/v1/chat/completions`,
      headers: { authorization: `Bearer ${u.key}` },
    }));
    const direct: Target = { name: 'mock', url: `${mockUrl}/v1/chat/completions`, headers: { authorization: 'Bearer x' } };

    log(`warm-up (${mode})`);
    await runLoad(targets, { concurrency: 1, maxRequests: 300, maxMs: 30_000, stream });
    await runLoad(targets, { concurrency: CONCURRENCY, maxRequests: 2000, maxMs: 10_000, stream });
    await runLoad(direct, { concurrency: 1, maxRequests: 300, maxMs: 30_000, stream });

    const lat = { mock: [] as number[], service: [] as number[] };
    for (let round = 0; round < 4; round++) {
      for (const [name, t] of [['mock', direct] as const, ['service', targets] as const]) {
        const r = await runLoad(t, { concurrency: 1, maxRequests: LATENCY / 4, maxMs: 60_000, stream });
        lat[name].push(...r.outcomes.filter((o) => o.ok).map((o) => o.totalMs));
      }
    }
    const m = summarize(lat.mock);
    const s = summarize(lat.service);
    log(`c=1 added p50 ${(s.p50 - m.p50).toFixed(3)} ms, p99 ${(s.p99 - m.p99).toFixed(3)} ms (mock p50 ${m.p50.toFixed(3)})`);

    const pgPids = await db.backendPids();
    const before = { svc: cpuMs(service.pid), pg: pgPids.map(cpuMs), load: os.loadavg()[0] };
    const r = await runLoad(targets, { concurrency: CONCURRENCY, maxRequests: 5_000_000, maxMs: SECONDS * 1000, stream });
    const svc = cpuMs(service.pid) - before.svc;
    const pg = pgPids.map(cpuMs).reduce((sum, v, i) => sum + (v - before.pg[i] || 0), 0);
    log(
      `c=${CONCURRENCY} ${ACCOUNTS} account(s): ${(r.ok / (r.elapsedMs / 1000)).toFixed(0)} req/s, ${r.failed} failed` +
        (r.firstProblem ? ` (${r.firstProblem})` : '') +
        `; CPU/request service ${(svc / r.ok).toFixed(3)} ms + PG ${(pg / r.ok).toFixed(3)} ms; ` +
        `RSS ${(service.memoryKb('VmRSS') / 1024).toFixed(0)} MB; load ${before.load.toFixed(2)} -> ${os.loadavg()[0].toFixed(2)}`,
    );
    await service.stop();
    if (profile) {
      const file = fs.readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error('no profile written');
      const keep = path.join(os.tmpdir(), `nebula-profile-${mode}.cpuprofile`);
      fs.copyFileSync(path.join(profDir, file), keep);
      process.stdout.write(`${renderProfile(summarizeProfile(keep, 45))}\n`);
      log(`profile kept at ${keep}`);
    }
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
  process.stderr.write(`profile failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
