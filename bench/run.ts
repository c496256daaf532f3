import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Child, cpuMs, freePort, RssSampler } from './lib/child';
import { intEnv } from './lib/env';
import http from 'node:http';
import { requestBody, runLoad, RunResult, sendOnce, Surface, Target } from './lib/http-load';
import { BenchReport, Mode, ModeFigures, RateLimitRun, renderMarkdown, SlowVendorFigures, TargetFigures } from './lib/report';
import { setFirstByteMs } from './mock-upstream';
import {
  BenchDatabase,
  BenchUser,
  BillingCheck,
  checkBilling,
  clearRateCounters,
  createUserWithKey,
  redisReachable,
  serviceEnv,
} from './lib/service-fixture';
import { median, summarize } from './lib/stats';
import { measureVendorClient } from './lib/vendor-client';
import { addSteps, emptyBreakdown, stepsBetween, stepTotals, TimeBreakdown } from './lib/time-breakdown';
import { keptSections } from './lib/results-section';

// `npm run bench`: the mock upstream, Portkey and this service as child processes, measured side by side in one run.
// Compiled to dist/bench/run.js, so the repository root is two levels up.
const ROOT = path.resolve(__dirname, '..', '..');

const SETTINGS = {
  latencyRequests: intEnv('BENCH_LATENCY_REQUESTS', 2000),
  warmupRequests: intEnv('BENCH_WARMUP_REQUESTS', 300),
  throughputSeconds: intEnv('BENCH_THROUGHPUT_SECONDS', 12),
  concurrency: intEnv('BENCH_CONCURRENCY', 64),
  pgAdminUrl: process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  // A Redis database of its own, so the bench's counters never meet another process's users.
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14',
  cpuProfDir: process.env.BENCH_CPU_PROF_DIR,
  accounts: intEnv('BENCH_ACCOUNTS', 64),
  /** The slow-vendor phase: the mock waits this long before each first byte (0 leaves the phase out). */
  slowFirstByteMs: intEnv('BENCH_SLOW_FIRST_BYTE_MS', 20),
  slowRequests: intEnv('BENCH_SLOW_REQUESTS', 400),
};
const LATENCY_ROUNDS = 4;
const THROUGHPUT_ROUNDS = 3;
/** How many operator CLI processes create the many accounts at once. */
const CLI_PARALLEL = 4;
const VIP_REQUESTS = 150;
const VIP_CONCURRENCY = 8;
const ELITE_TOKENS = 100_000_000;
const MODES: Mode[] = ['sync', 'stream'];
/** The other /v1 surfaces over the same chat core, measured when this build serves them (each with an account of its own). */
const NEW_SURFACES: { surface: Surface; path: string }[] = [
  { surface: 'messages', path: '/v1/messages' },
  { surface: 'responses', path: '/v1/responses' },
];

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hourWindow = () => Math.floor(Date.now() / 3_600_000);

interface Entry {
  name: string;
  /** One per account; the load's connections are spread over them. */
  targets: Target[];
  child?: Child;
  isGateway: boolean;
  /** Measured at concurrency 1 too (not the many-accounts entry: one request at a time is one account at a time). */
  latencyMeasured: boolean;
  latency: Record<Mode, RunResult[]>;
  throughput: Partial<Record<Mode, Throughput>>;
  /** Every 200 each target answered, warm-ups included (the service's billing check needs them all). */
  okByTarget: number[];
  /** Set for the one entry whose concurrency-1 time is broken down by the service's histograms. */
  breakdown?: Partial<Record<Mode, TimeBreakdown>>;
}

/** The concurrency-64 rounds of one target and mode, added up (CPU in ms over all rounds). */
interface Throughput {
  /** req/s of each round. */
  rounds: number[];
  ok: number;
  failed: number;
  elapsedMs: number;
  statuses: Record<number, number>;
  cpu: { gateway: number; postgres: number; mock: number };
  hasPostgres?: boolean;
}

/** Who else is measured: the mock's CPU, and the service's PostgreSQL backends. */
interface Context {
  mock: Child;
  db: BenchDatabase;
  /** The service's /metrics, for the time breakdown. */
  metrics: { url: string; token: string };
}

async function metricsText(m: Context['metrics']): Promise<string> {
  return (await fetch(m.url, { headers: { authorization: `Bearer ${m.token}` } })).text();
}

/** A concurrency-1 round of the entry whose time is broken down: the service's step histograms are read around it. */
async function latencyRound(e: Entry, mode: Mode, ctx: Context, opts: Parameters<typeof runLoad>[1]): Promise<RunResult> {
  if (!e.breakdown) return measure(e, opts);
  const before = stepTotals(await metricsText(ctx.metrics));
  const r = await measure(e, opts);
  const after = stepTotals(await metricsText(ctx.metrics));
  const b = (e.breakdown[mode] ??= emptyBreakdown());
  const ok = r.outcomes.filter((o) => o.ok);
  b.requests += ok.length;
  b.serviceMs += ok.reduce((sum, o) => sum + o.totalMs, 0);
  addSteps(b.steps, stepsBetween(before, after));
  return r;
}

function newEntry(name: string, targets: Target[], isGateway: boolean, child?: Child, latencyMeasured = true): Entry {
  return {
    name,
    targets,
    child,
    isGateway,
    latencyMeasured,
    latency: { sync: [], stream: [] },
    throughput: {},
    okByTarget: targets.map(() => 0),
  };
}

async function measure(entry: Entry, opts: Parameters<typeof runLoad>[1]): Promise<RunResult> {
  const r = await runLoad(entry.targets, opts);
  r.okByTarget.forEach((n, i) => (entry.okByTarget[i] += n));
  if (entry.child && !entry.child.running)
    throw new Error(
      `${entry.child.name} (pid ${entry.child.pid}) ended during the run (${entry.child.exitStatus}); its last output:\n${entry.child.tail()}`,
    );
  if (r.failed > 0) log(`${entry.name}: ${r.failed} failed, e.g. ${r.firstProblem}`);
  return r;
}

async function benchMode(entries: Entry[], mode: Mode, ctx: Context): Promise<void> {
  const stream = mode === 'stream';
  const c = SETTINGS.concurrency;
  for (const e of entries) {
    log(`${mode}: warm-up ${e.name}`);
    if (e.latencyMeasured) await measure(e, { concurrency: 1, maxRequests: SETTINGS.warmupRequests, maxMs: 30_000, stream });
    await measure(e, { concurrency: c, maxRequests: SETTINGS.warmupRequests * 4, maxMs: 10_000, stream });
  }
  // Rounds in rotating order, so a slow spell on the machine does not land on one target only.
  const perRound = Math.ceil(SETTINGS.latencyRequests / LATENCY_ROUNDS);
  const timed = entries.filter((e) => e.latencyMeasured);
  for (let round = 0; round < LATENCY_ROUNDS; round++) {
    for (let i = 0; i < timed.length; i++) {
      const e = timed[(i + round) % timed.length];
      e.latency[mode].push(await latencyRound(e, mode, ctx, { concurrency: 1, maxRequests: perRound, maxMs: 120_000, stream }));
    }
  }
  // Throughput in rotating rounds as well; each target gets throughputSeconds in total.
  const roundMs = (SETTINGS.throughputSeconds * 1000) / THROUGHPUT_ROUNDS;
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    for (let i = 0; i < entries.length; i++) {
      const e = entries[(i + round) % entries.length];
      log(`${mode}: ${roundMs / 1000} s at concurrency ${c} on ${e.name} (round ${round + 1}/${THROUGHPUT_ROUNDS})`);
      await pause(500);
      await throughputRound(e, mode, ctx, roundMs);
    }
  }
}

async function throughputRound(e: Entry, mode: Mode, ctx: Context, maxMs: number): Promise<void> {
  // The service's own database backends are its cost too; Portkey and the mock have none.
  const pgPids = e.child?.name === 'service' ? await ctx.db.backendPids() : [];
  const before = { gateway: e.child ? cpuMs(e.child.pid) : NaN, mock: cpuMs(ctx.mock.pid), pg: pgPids.map(cpuMs) };
  const r = await measure(e, { concurrency: SETTINGS.concurrency, maxRequests: 2_000_000, maxMs, stream: mode === 'stream' });
  const pgUsed = pgPids
    .map(cpuMs)
    .reduce((sum, v, i) => sum + (Number.isFinite(v) && Number.isFinite(before.pg[i]) ? v - before.pg[i] : 0), 0);
  const tp = (e.throughput[mode] ??= {
    rounds: [],
    ok: 0,
    failed: 0,
    elapsedMs: 0,
    statuses: {},
    cpu: { gateway: 0, postgres: 0, mock: 0 },
  });
  tp.rounds.push(r.ok / (r.elapsedMs / 1000));
  tp.ok += r.ok;
  tp.failed += r.failed;
  tp.elapsedMs += r.elapsedMs;
  for (const [status, n] of Object.entries(r.statuses)) tp.statuses[Number(status)] = (tp.statuses[Number(status)] ?? 0) + n;
  tp.cpu.gateway += e.child ? cpuMs(e.child.pid) - before.gateway : 0;
  tp.cpu.postgres += pgUsed;
  tp.cpu.mock += cpuMs(ctx.mock.pid) - before.mock;
  tp.hasPostgres ||= pgPids.length > 0;
}

/**
 * Concurrency 1 against a vendor that waits before its first byte: what the service adds where users wait. The
 * mock is switched to the delay for this phase only; its answers are counted for the billing check as any other.
 */
async function slowVendorPhase(entries: Entry[], mockUrl: string): Promise<SlowVendorFigures> {
  const timed = entries.filter((e) => e.latencyMeasured);
  const samples = new Map(timed.map((e) => [e, { sync: [] as number[], stream: [] as number[], failed: { sync: 0, stream: 0 } }]));
  await setFirstByteMs(mockUrl, SETTINGS.slowFirstByteMs);
  try {
    for (const mode of MODES) {
      const stream = mode === 'stream';
      for (const e of timed) await measure(e, { concurrency: 1, maxRequests: 50, maxMs: 30_000, stream });
      const perRound = Math.ceil(SETTINGS.slowRequests / LATENCY_ROUNDS);
      for (let round = 0; round < LATENCY_ROUNDS; round++) {
        for (let i = 0; i < timed.length; i++) {
          const e = timed[(i + round) % timed.length];
          log(`${mode}, vendor waits ${SETTINGS.slowFirstByteMs} ms: ${e.name} (round ${round + 1}/${LATENCY_ROUNDS})`);
          const r = await measure(e, { concurrency: 1, maxRequests: perRound, maxMs: 120_000, stream });
          const s = samples.get(e)!;
          s[mode].push(...r.outcomes.filter((o) => o.ok).map((o) => o.totalMs));
          s.failed[mode] += r.failed;
        }
      }
    }
  } finally {
    await setFirstByteMs(mockUrl, 0);
  }
  return {
    firstByteMs: SETTINGS.slowFirstByteMs,
    requests: SETTINGS.slowRequests,
    rows: timed.map((e) => {
      const s = samples.get(e)!;
      const of = (mode: Mode) => ({ ...summarize(s[mode]), failed: s.failed[mode] });
      return {
        name: e.name,
        isGateway: e.isGateway,
        isPortkey: e.name.startsWith('Portkey'),
        modes: { sync: of('sync'), stream: of('stream') },
      };
    }),
  };
}

function figures(e: Entry, mode: Mode): ModeFigures {
  const ok = e.latency[mode].flatMap((r) => r.outcomes.filter((o) => o.ok));
  const tp = e.throughput[mode]!;
  const per = (v: number) => (tp.ok > 0 ? v / tp.ok : NaN);
  return {
    latency: summarize(ok.map((o) => o.totalMs)),
    firstByteP50: summarize(ok.map((o) => o.firstByteMs)).p50,
    latencyFailed: e.latency[mode].reduce((s, r) => s + r.failed, 0),
    rps: median(tp.rounds),
    rpsRounds: tp.rounds,
    throughputOk: tp.ok,
    throughputFailed: tp.failed,
    throughputStatuses: tp.statuses,
    cpu: {
      gateway: e.child ? per(tp.cpu.gateway) : NaN,
      postgres: tp.hasPostgres ? per(tp.cpu.postgres) : undefined,
      mock: per(tp.cpu.mock),
    },
  };
}

async function rateLimitRun(serviceUrl: string, user: BenchUser, db: BenchDatabase): Promise<RateLimitRun> {
  const target = { name: 'service (vip)', url: serviceUrl, headers: { authorization: `Bearer ${user.key}` } };
  const hourBefore = hourWindow();
  const r = await runLoad(target, { concurrency: VIP_CONCURRENCY, maxRequests: VIP_REQUESTS, maxMs: 60_000, stream: false });
  const refusal = r.outcomes.find((o) => o.status === 429);
  const plan = await db.query<{ h: number }>(`SELECT rate_limit_hourly AS h FROM plans WHERE slug = $1`, [user.plan]);
  return {
    plan: user.plan,
    sent: r.outcomes.length,
    accepted: r.ok,
    refused429: r.statuses[429] ?? 0,
    other: r.outcomes.length - r.ok - (r.statuses[429] ?? 0),
    limitHour: Number(plan[0]?.h ?? NaN),
    sameHour: hourBefore === hourWindow(),
    refusalBody: refusal?.problem?.replace(/^HTTP 429: /, ''),
    billing: await checkBilling(db, user.id, r.ok),
  };
}

/** The service's own counts of vendor calls started beside their hold, and of those a refused hold aborted. */
async function earlyDispatchCounts(metrics: Context['metrics']): Promise<{ started: number; refused: number } | undefined> {
  try {
    const text = await metricsText(metrics);
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    return { started: value('nebula_chat_early_dispatch_total'), refused: value('nebula_chat_early_dispatch_refused_total') };
  } catch {
    return undefined;
  }
}

/** The mock's own mean time at concurrency 1, per mode, next to the service's breakdown. */
function withMockMeans(byMode: Entry['breakdown'], direct: Entry): Entry['breakdown'] {
  for (const mode of MODES) {
    const b = byMode?.[mode];
    const ok = direct.latency[mode].flatMap((r) => r.outcomes.filter((o) => o.ok));
    if (b && ok.length > 0) b.mockMeanMs = ok.reduce((sum, o) => sum + o.totalMs, 0) / ok.length;
  }
  return byMode;
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const ram = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `nproc=${os.availableParallelism()}, ${cpu}, ${ram} GiB RAM, Linux ${os.release()}, Node ${process.version}`;
}

/** The commit measured, and whether src/ had uncommitted edits (the build compiles the working tree). */
function revision(): string {
  try {
    const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = git(['status', '--porcelain', '--', 'src', 'migrations']) !== '';
    return `${git(['rev-parse', '--short', 'HEAD'])}${dirty ? ' + uncommitted changes in src/' : ''}`;
  } catch {
    return 'unknown (no git)';
  }
}

function command(): string {
  const overrides = Object.keys(process.env)
    .filter((k) => k.startsWith('BENCH_') || k.startsWith('BILLING_'))
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  return [...overrides, 'npm run bench'].join(' ');
}

async function main(): Promise<void> {
  for (const f of ['dist/src/main.js', 'dist/src/cli.js', 'dist/bench/mock-upstream.js']) {
    if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`${f} is missing: run \`npm run bench\` (it builds first)`);
  }
  const children: Child[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-bench-'));
  let db: BenchDatabase | undefined;
  let redisUrl: string | undefined;
  const userIds: number[] = [];
  try {
    const mock = Child.start('mock', process.execPath, ['dist/bench/mock-upstream.js'], { env: { PATH: process.env.PATH }, cwd: ROOT });
    children.push(mock);
    const mockUrl = (await mock.waitForOutput(/\{"url":"([^"]+)"\}/, 10_000))[1];
    log(`mock upstream at ${mockUrl}`);

    db = await BenchDatabase.create(SETTINGS.pgAdminUrl);
    log(`bench database ${db.name}`);
    const redis = new URL(SETTINGS.redisUrl);
    redisUrl = (await redisReachable(redis.hostname, Number(redis.port || 6379))) ? SETTINGS.redisUrl : undefined;
    log(redisUrl ? `Redis at ${redisUrl}` : 'Redis not reachable: rate counters on PostgreSQL');

    const servicePort = await freePort();
    // /metrics on the service's port, behind a token, so the run can read how many vendor calls started early.
    const metricsToken = crypto.randomBytes(16).toString('hex');
    const env = serviceEnv(
      process.env,
      { port: servicePort, dataDir, databaseUrl: db.url, mockUrl, redisUrl },
      { METRICS_TOKEN: metricsToken },
    );
    const elite = await createUserWithKey(ROOT, env, 'elite', ELITE_TOKENS);
    const vip = await createUserWithKey(ROOT, env, 'vip', 1_000_000);
    userIds.push(elite.id, vip.id);
    log(`users: elite ${elite.id}, vip ${vip.id}; creating ${SETTINGS.accounts} more elite accounts`);
    const many: BenchUser[] = [];
    for (let i = 0; i < SETTINGS.accounts; i += CLI_PARALLEL) {
      const batch = Array.from({ length: Math.min(CLI_PARALLEL, SETTINGS.accounts - i) }, () =>
        createUserWithKey(ROOT, env, 'elite', ELITE_TOKENS),
      );
      many.push(...(await Promise.all(batch)));
    }
    userIds.push(...many.map((u) => u.id));

    const profArgs = SETTINGS.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(SETTINGS.cpuProfDir)}`] : [];
    const service = Child.start('service', process.execPath, [...profArgs, 'dist/src/main.js'], { env, cwd: ROOT });
    children.push(service);
    const portkeyPort = await freePort();
    const portkeyBin = path.join(
      path.dirname(require.resolve('@portkey-ai/gateway/package.json', { paths: [ROOT] })),
      'build/start-server.js',
    );
    const portkey = Child.start(
      'portkey',
      process.execPath,
      ['--require', path.join(__dirname, 'lib/loopback-only.js'), portkeyBin, `--port=${portkeyPort}`],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' }, cwd: ROOT },
    );
    children.push(portkey);
    await service.waitForHttp(`http://127.0.0.1:${servicePort}/health`, 60_000, 200);
    await portkey.waitForHttp(`http://127.0.0.1:${portkeyPort}/`, 60_000, 200);
    log(`service pid ${service.pid} on ${servicePort}, Portkey pid ${portkey.pid} on ${portkeyPort}`);

    const portkeyPackage = path.join(path.dirname(portkeyBin), '..', 'package.json');
    const portkeyVersion = (JSON.parse(fs.readFileSync(portkeyPackage, 'utf8')) as { version: string }).version;
    const serviceUrl = `http://127.0.0.1:${servicePort}/v1/chat/completions`;
    const keyed = (name: string, u: BenchUser) => ({ name, url: serviceUrl, headers: { authorization: `Bearer ${u.key}` } });
    // A surface this build does not serve answers 404 and is left out; the probe's answer counts for billing.
    const surfaces: { surface: Surface; user: BenchUser; target: Target; probeOk: number }[] = [];
    for (const { surface, path: route } of NEW_SURFACES) {
      const user = await createUserWithKey(ROOT, env, 'elite', ELITE_TOKENS);
      userIds.push(user.id);
      const target: Target = {
        name: `nebula-gen ${route}`,
        url: `http://127.0.0.1:${servicePort}${route}`,
        headers: { authorization: `Bearer ${user.key}` },
        surface,
      };
      const agent = new http.Agent({ keepAlive: false });
      const probe = await sendOnce(target, agent, requestBody(surface, false), false);
      agent.destroy();
      if (probe.status === 404) log(`${route}: not served by this build, left out`);
      else surfaces.push({ surface, user, target, probeOk: probe.ok ? 1 : 0 });
    }
    const entries = [
      newEntry(
        'mock direct',
        [{ name: 'mock direct', url: `${mockUrl}/v1/chat/completions`, headers: { authorization: 'Bearer x' } }],
        false,
      ),
      newEntry(
        `Portkey ${portkeyVersion}`,
        [
          {
            name: `Portkey ${portkeyVersion}`,
            url: `http://127.0.0.1:${portkeyPort}/v1/chat/completions`,
            headers: { authorization: 'Bearer x', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${mockUrl}/v1` },
          },
        ],
        true,
        portkey,
      ),
      newEntry('nebula-gen (elite key)', [keyed('nebula-gen (elite key)', elite)], true, service),
      newEntry(
        `nebula-gen (${many.length} accounts)`,
        many.map((u, i) => keyed(`account ${i + 1}`, u)),
        true,
        service,
        false,
      ),
      ...surfaces.map((s) => newEntry(`${s.target.name} (elite key)`, [s.target], true, service)),
    ];
    surfaces.forEach((s, i) => (entries[4 + i].okByTarget[0] += s.probeOk));

    await pause(1000);
    const idle = new Map(entries.filter((e) => e.child).map((e) => [e.child!, e.child!.memoryKb('VmRSS')]));
    const started = Date.now();
    const sampler = new RssSampler([service, portkey]);
    sampler.start();
    const loadBefore = os.loadavg()[0];
    const [directEntry, , serviceEntry, manyEntry] = entries;
    serviceEntry.breakdown = {};
    const metrics = { url: `http://127.0.0.1:${servicePort}/metrics`, token: metricsToken };
    for (const mode of MODES) await benchMode(entries, mode, { mock, db, metrics });
    const slowVendor = SETTINGS.slowFirstByteMs > 0 ? await slowVendorPhase(entries, mockUrl) : undefined;
    log('rate-limit run with the vip user');
    const rateLimit = await rateLimitRun(serviceUrl, vip, db);
    sampler.stop();
    log('vendor client against a bare undici request');
    const vendorClient = await measureVendorClient(mockUrl, { calls: 500, rounds: 3 });

    const targets: TargetFigures[] = entries.map((e) => ({
      name: e.name,
      surface: e.targets[0].surface,
      isGateway: e.isGateway,
      accounts: e.child === service ? e.targets.length : undefined,
      latencyMeasured: e.latencyMeasured,
      modes: { sync: figures(e, 'sync'), stream: figures(e, 'stream') },
      memory: e.child
        ? { idleKb: idle.get(e.child)!, sampledPeakKb: sampler.peakKb(e.child), hwmKb: e.child.memoryKb('VmHWM') }
        : undefined,
    }));
    const manyChecks: BillingCheck[] = [];
    for (let i = 0; i < many.length; i++) manyChecks.push(await checkBilling(db, many[i].id, manyEntry.okByTarget[i]));
    const surfaceBilling: BillingCheck[] = [];
    for (let i = 0; i < surfaces.length; i++)
      surfaceBilling.push(await checkBilling(db, surfaces[i].user.id, entries[4 + i].okByTarget[0]));
    const report: BenchReport = {
      date: new Date().toISOString(),
      machine: machine(),
      command: command(),
      revision: revision(),
      settings:
        `concurrency 1: ${SETTINGS.latencyRequests} requests per target and mode in ${LATENCY_ROUNDS} rotating rounds, after ` +
        `${SETTINGS.warmupRequests} warm-up requests at concurrency 1 and ${SETTINGS.warmupRequests * 4} at concurrency ${SETTINGS.concurrency}; ` +
        `throughput: ${SETTINGS.throughputSeconds} s per target and mode at concurrency ${SETTINGS.concurrency} in ${THROUGHPUT_ROUNDS} rotating rounds (req/s: median of the rounds), ` +
        `with one account and with ${SETTINGS.accounts} accounts (each its own key, the connections spread over them); keep-alive node:http client; ` +
        `model gpt-6-luna, max_tokens 32, streaming with stream_options.include_usage; service with NODE_ENV=production, LOG_LEVEL=warn`,
      targets,
      billing: await checkBilling(db, elite.id, serviceEntry.okByTarget[0]),
      manyBilling: manyChecks,
      surfaceBilling,
      rateLimit,
      load: `1-minute load average ${loadBefore.toFixed(2)} before the measurements, ${os.loadavg()[0].toFixed(2)} after (nproc ${os.availableParallelism()}; while measuring, the bench's own processes add about 2)`,
      redis: redisUrl ? `Redis (${redisUrl})` : 'PostgreSQL (Redis not reachable)',
      vendorClient,
      earlyDispatch: await earlyDispatchCounts(metrics),
      timeBreakdown: withMockMeans(serviceEntry.breakdown, directEntry),
      slowVendor,
    };
    await Promise.all(children.map((c) => c.stop()));
    const markdown = renderMarkdown(report);
    log(`measurements took ${((Date.now() - started) / 60_000).toFixed(1)} min`);
    const unbilled = [
      report.billing,
      ...report.manyBilling,
      ...report.surfaceBilling,
      ...(report.rateLimit ? [report.rateLimit.billing] : []),
    ].filter((c) => !c.ok);
    const resultsFile = path.join(ROOT, 'bench', 'results.md');
    fs.writeFileSync(resultsFile, `${markdown.trimEnd()}\n${keptSections(resultsFile)}`);
    process.stdout.write(`${markdown}\n`);
    log('written to bench/results.md');
    if (unbilled.length > 0) {
      log(`billing MISMATCH for user ${unbilled.map((c) => c.userId).join(', ')}: the run fails`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(children.map((c) => c.stop().catch(() => undefined)));
    if (redisUrl && userIds.length > 0)
      await clearRateCounters(redisUrl, userIds).catch((err: Error) => log(`Redis cleanup: ${err.message}`));
    await db?.drop().catch((err: Error) => log(`could not drop ${db?.name}: ${err.message}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
