import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { intEnv } from './lib/env';
import { Child, freePort } from './lib/child';
import type { ModuleCensus } from './lib/module-census';
import { BenchDatabase, redisReachable, serviceEnv } from './lib/service-fixture';
import { median } from './lib/stats';

// `npm run bench:idle-memory`: the service's resident memory right after start, with what it has loaded.
// The service starts as an operator starts it (`node dist/src/main.js`, NODE_ENV=production, no BOT_TOKEN, local
// storage, no SMTP) on a fresh database, migrated first so every measured start is a restart. Each run is a new
// process: ready (/health/ready 200), a short settle, VmRSS sampled a few times ("after start"); again once V8's
// memory reducer has had its chance to shrink the heap of an idle process ("settled", IDLE_SETTLED_MS after ready);
// then a census of require.cache. Portkey is measured the same way, in the same sitting.
const ROOT = path.resolve(__dirname, '..', '..');

const SETTINGS = {
  runs: intEnv('IDLE_RUNS', 3),
  samples: intEnv('IDLE_SAMPLES', 5),
  settleMs: intEnv('IDLE_SETTLE_MS', 2000),
  /** V8's memory reducer first runs about 8 s after the last full collection, and may take a few rounds. */
  settledMs: intEnv('IDLE_SETTLED_MS', 30_000),
  /** Extra node flags for the service (e.g. `--max-semi-space-size=4`), split on spaces. */
  nodeArgs: (process.env.IDLE_NODE_ARGS ?? '').split(' ').filter(Boolean),
  portkey: process.env.IDLE_PORTKEY !== '0',
  pgAdminUrl: process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14',
};
const SAMPLE_EVERY_MS = 500;
const TOP_PACKAGES = 25;

const log = (msg: string) => process.stderr.write(`[idle-memory] ${msg}\n`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (kb: number) => (kb / 1024).toFixed(1);
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').trim();

interface IdleFigures {
  /** VmRSS samples right after start, and once settled. */
  rssKb: number[];
  settledKb: number[];
}

interface RunFigures extends IdleFigures {
  hwmKb: number;
  census: ModuleCensus;
}

/** VmRSS of `child` a few times, SAMPLE_EVERY_MS apart. */
async function sampleRss(child: Child): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SETTINGS.samples; i++) {
    if (i > 0) await pause(SAMPLE_EVERY_MS);
    out.push(child.memoryKb('VmRSS'));
  }
  return out;
}

/** Both idle figures of a process that has just become ready. */
async function sampleIdle(child: Child): Promise<IdleFigures> {
  const start = Date.now();
  await pause(SETTINGS.settleMs);
  const rssKb = await sampleRss(child);
  await pause(Math.max(0, SETTINGS.settledMs - (Date.now() - start)));
  return { rssKb, settledKb: await sampleRss(child) };
}

/** Asks the census preload for its figures (SIGUSR2) and waits for the file it writes. */
async function readCensus(child: Child, file: string): Promise<ModuleCensus> {
  fs.rmSync(file, { force: true });
  process.kill(child.pid, 'SIGUSR2');
  for (let i = 0; i < 50 && !fs.existsSync(file); i++) await pause(100);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ModuleCensus;
}

async function measureService(env: NodeJS.ProcessEnv, port: number, censusFile: string): Promise<RunFigures> {
  const args = [...SETTINGS.nodeArgs, '--require', path.join(__dirname, 'lib/module-census.js'), 'dist/src/main.js'];
  const service = Child.start('service', process.execPath, args, { env: { ...env, MODULE_CENSUS_FILE: censusFile }, cwd: ROOT });
  try {
    await service.waitForHttp(`http://127.0.0.1:${port}/health/ready`, 60_000, 200);
    const idle = await sampleIdle(service);
    const hwmKb = service.memoryKb('VmHWM');
    const census = await readCensus(service, censusFile);
    return { ...idle, hwmKb, census };
  } finally {
    await service.stop();
  }
}

async function measurePortkey(): Promise<IdleFigures> {
  const port = await freePort();
  const bin = path.join(path.dirname(require.resolve('@portkey-ai/gateway/package.json', { paths: [ROOT] })), 'build/start-server.js');
  const portkey = Child.start(
    'portkey',
    process.execPath,
    ['--require', path.join(__dirname, 'lib/loopback-only.js'), bin, `--port=${port}`],
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' },
      cwd: ROOT,
    },
  );
  try {
    await portkey.waitForHttp(`http://127.0.0.1:${port}/`, 60_000, 200);
    return await sampleIdle(portkey);
  } finally {
    await portkey.stop();
  }
}

function report(runs: RunFigures[], portkey: IdleFigures | undefined, load: { before: string; after: string }): string {
  const idle = runs.map((r) => median(r.rssKb));
  const settled = runs.map((r) => median(r.settledKb));
  const last = runs[runs.length - 1].census;
  const top = Object.entries(last.packages)
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_PACKAGES);
  const lines = [
    `# Idle memory`,
    ``,
    `command: ${[SETTINGS.nodeArgs.length ? `IDLE_NODE_ARGS="${SETTINGS.nodeArgs.join(' ')}"` : '', 'npm run bench:idle-memory'].filter(Boolean).join(' ')}`,
    `load (/proc/loadavg): ${load.before} before, ${load.after} after`,
    ``,
    `| run | VmRSS after start (MB) | median | settled (${SETTINGS.settledMs / 1000} s) | VmHWM | modules | heap used / total | new space |`,
    `|---|---|---:|---:|---:|---:|---:|---:|`,
    ...runs.map(
      (r, i) =>
        `| ${i + 1} | ${r.rssKb.map(mb).join(' ')} | ${mb(median(r.rssKb))} | ${mb(median(r.settledKb))} | ${mb(r.hwmKb)} | ${r.census.modules} | ` +
        `${mb(r.census.memory.heapUsed / 1024)} / ${mb(r.census.memory.heapTotal / 1024)} | ${mb((r.census.heapSpaces.new_space ?? NaN) / 1024)} |`,
    ),
    ``,
    `**service idle RSS, median of runs: ${mb(median(idle))} MB after start, ${mb(median(settled))} MB settled**` +
      (portkey ? ` (Portkey in the same sitting: ${mb(median(portkey.rssKb))} MB, ${mb(median(portkey.settledKb))} MB settled)` : ''),
    `(the census's heap figures are read after the settled samples)`,
    ``,
    `Loaded files per package (last run, top ${TOP_PACKAGES} of ${Object.keys(last.packages).length}):`,
    ``,
    ...top.map(([name, n]) => `- ${name}: ${n}`),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  for (const f of ['dist/src/main.js', 'dist/src/migrate.js', 'dist/bench/mock-upstream.js', 'dist/bench/lib/module-census.js']) {
    if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`${f} is missing: run \`npm run bench:idle-memory\` (it builds first)`);
  }
  const before = loadavg();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-idle-'));
  const db = await BenchDatabase.create(SETTINGS.pgAdminUrl);
  const stopLater: Child[] = [];
  try {
    log(`database ${db.name}`);
    const redis = new URL(SETTINGS.redisUrl);
    const redisUrl = (await redisReachable(redis.hostname, Number(redis.port || 6379))) ? SETTINGS.redisUrl : undefined;
    // OpenAI "live" against the bench's mock upstream, as in `npm run bench`.
    const mock = Child.start('mock', process.execPath, ['dist/bench/mock-upstream.js'], { env: { PATH: process.env.PATH }, cwd: ROOT });
    stopLater.push(mock);
    const mockUrl = (await mock.waitForOutput(/\{"url":"([^"]+)"\}/, 10_000))[1];
    const port = await freePort();
    const env = serviceEnv(process.env, { port, dataDir, databaseUrl: db.url, mockUrl, redisUrl });
    execFileSync(process.execPath, ['dist/src/migrate.js'], { cwd: ROOT, env, stdio: 'ignore' });
    const censusFile = path.join(dataDir, `census-${crypto.randomBytes(4).toString('hex')}.json`);
    const runs: RunFigures[] = [];
    for (let i = 0; i < SETTINGS.runs; i++) {
      runs.push(await measureService(env, port, censusFile));
      log(`run ${i + 1}: ${mb(median(runs[i].rssKb))} MB after start, ${mb(median(runs[i].settledKb))} MB settled`);
    }
    const portkey = SETTINGS.portkey ? await measurePortkey() : undefined;
    process.stdout.write(`${report(runs, portkey, { before, after: loadavg() })}\n`);
  } finally {
    for (const c of stopLater) await c.stop();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
