import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Child, freePort } from './lib/child';
import { auditDeliveries } from './lib/delivery-audit';
import { LoadTally, oneRequest } from './lib/mixed-load';
import { PgCluster } from './lib/pg-cluster';
import { RedisServer } from './lib/redis-server';
import { writeSection } from './lib/results-section';
import { BenchDatabase, BenchUser, createUserWithKey } from './lib/service-fixture';

// `npm run bench:pg-restarts -- [--restarts N] [--gap-ms MS]` (default 20 restarts, 4000 ms of load between them):
// the service as `npm start` runs it (`node dist/src/main.js`, production, SANDBOX=1) on a PostgreSQL cluster of
// the bench's own (initdb + pg_ctl, never the machine's server) and a redis-server of its own. PG_RESTART_CLIENTS
// clients (default 6) send a mix: /v1 chat (sync and streamed), /api/v2 streams, images with and without an
// Idempotency-Key (a keyed image is retried with its key until it answers). Meanwhile the cluster gets
// `pg_ctl -m immediate restart` N times. When the load stops and the service drains, it is stopped (SIGTERM) and
// the database is read: delivered answers vs billed generations (matched by generation id; a /v1 chat by the tag in
// its prompt), tags charged twice, and ledger drift. Exits 1 on a process exit, an unbilled delivered answer, a
// double charge or drift.

const ROOT = path.resolve(__dirname, '..', '..');
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const RESTARTS = arg('--restarts', 20);
const GAP_MS = arg('--gap-ms', 4000);
const CLIENTS = Number(process.env.PG_RESTART_CLIENTS ?? 6);
const log = (msg: string) => process.stderr.write(`[pg-restarts] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The service, started again if it ever exits; every exit it was not asked for is counted. */
class Service {
  child!: Child;
  readonly exits: string[] = [];

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    readonly base: string,
  ) {}

  async start(): Promise<void> {
    this.child = Child.start('service', process.execPath, ['dist/src/main.js'], { env: this.env, cwd: ROOT });
    await this.child.waitForHttp(`${this.base}/health/ready`, 120_000, 200);
  }

  /** Counts an exit and starts it again; returns whether it had exited. */
  async reviveIfExited(): Promise<boolean> {
    if (this.child.running) return false;
    this.exits.push(this.child.exitStatus);
    log(`service exited (${this.child.exitStatus}):\n${this.child.tail()}`);
    await this.start();
    return true;
  }
}

/** Waits (up to `ms`) until no generation is pending and no hold is open: what the service had in flight settled. */
async function drained(db: BenchDatabase, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const [row] = await db
      .query<{ n: string }>(
        `SELECT (SELECT count(*) FROM generations WHERE status = 'pending')
              + (SELECT count(*) FROM token_reservations WHERE status = 'reserved') AS n`,
      )
      .catch(() => [{ n: '-1' }]);
    if (row.n === '0') return true;
    await sleep(500);
  }
  return false;
}

/** The section of bench/results.md: the command, the load, the figures. */
function resultsBody(lines: string[]): string {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return [
    `\`npm run bench:pg-restarts -- --restarts ${RESTARTS} --gap-ms ${GAP_MS}\` (PG_RESTART_CLIENTS=${CLIENTS}), ${new Date().toISOString().slice(0, 10)}, load average at the end ${load}.`,
    '',
    `Load: ${CLIENTS} clients in a loop over 4 elite accounts, each request one of 8 in turn: a /v1/chat/completions (sync), a streamed one, three`,
    '/api/v2/generate/stream, an image (flux-dev) without and two with an Idempotency-Key (retried with the key, up to 5 tries, until',
    'answered; an answer `pending` is polled). The service: `node dist/src/main.js`, NODE_ENV=production, SANDBOX=1 (40 ms per',
    'chunk), on a cluster of its own (initdb + pg_ctl) and a redis-server of its own. A client backs off 250 ms after a failure.',
    '',
    '```',
    ...lines,
    '```',
  ].join('\n');
}

async function main(): Promise<void> {
  if (!(RESTARTS >= 1) || !(GAP_MS >= 500)) throw new Error('--restarts must be at least 1 and --gap-ms at least 500');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-pg-restarts-'));
  const cluster = await PgCluster.start();
  const db = await BenchDatabase.create(cluster.adminUrl);
  const redis = await RedisServer.start(await freePort());
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    SANDBOX: '1',
    SANDBOX_CHUNK_DELAY_MS: '40',
    LOG_LEVEL: 'warn',
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    API_KEY_PEPPER: crypto.randomBytes(32).toString('hex'),
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: path.join(work, 'data'),
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
  };
  const service = new Service(env, `http://127.0.0.1:${port}`);
  let failed = true;
  try {
    await service.start();
    const users: BenchUser[] = [];
    for (let i = 0; i < 4; i++) users.push(await createUserWithKey(ROOT, env, 'elite', 10_000_000));
    log(`${CLIENTS} clients, ${users.length} accounts, ${RESTARTS} restarts every ${GAP_MS} ms`);

    const tally = new LoadTally();
    let loading = true;
    let turn = 0;
    const client = async (c: number) => {
      while (loading) {
        const n = turn++;
        const delivered = await oneRequest(service.base, users[(n + c) % users.length], n, tally).catch((err: Error) =>
          tally.refuse(`connection: ${err.message}`),
        );
        if (!delivered) await sleep(250); // a client backs off after a 503
      }
    };
    const restartTimes: number[] = [];
    const restarts = (async () => {
      for (let i = 1; i <= RESTARTS; i++) {
        await sleep(GAP_MS);
        await service.reviveIfExited();
        const at = Date.now();
        await cluster.restartImmediate();
        restartTimes.push(Date.now() - at);
        log(`restart ${i}/${RESTARTS} took ${Date.now() - at} ms; ${tally.delivered.length} delivered so far`);
      }
      await sleep(GAP_MS);
      await service.reviveIfExited();
      loading = false;
    })();
    const started = Date.now();
    await Promise.all([...Array.from({ length: CLIENTS }, (_, c) => client(c)), restarts]);
    const seconds = (Date.now() - started) / 1000;

    // What was in flight at an outage and never delivered stays pending until its lease is resolved: by a silent
    // lease's 10 minutes, or at the next start of its instance. The bench takes the second way: stop, start, stop.
    const queued = await db.query<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM generations WHERE id = ANY($1::int[]) GROUP BY status`,
      [tally.queued],
    );
    const settledRunning = await drained(db, 30_000);
    await service.reviveIfExited();
    const [left] = await db.query<{ n: string }>(`SELECT count(*) AS n FROM generations WHERE status = 'pending'`);
    await service.child.stop(30_000);
    const stopStatus = service.child.exitStatus;
    await service.start();
    const settled = await drained(db, 60_000);
    await service.child.stop(30_000);
    const secondStop = service.child.exitStatus;
    const audit = await auditDeliveries(db, tally.delivered);

    const byKind = new Map<string, number>();
    for (const d of tally.delivered) byKind.set(d.kind, (byKind.get(d.kind) ?? 0) + 1);
    const refused = [...tally.refused.entries()].sort((x, y) => y[1] - x[1]);
    const meanRestart = restartTimes.reduce((s, t) => s + t, 0) / Math.max(1, restartTimes.length);
    const lines = [
      `PostgreSQL restarts under load: ${restartTimes.length} x pg_ctl -m immediate restart (mean ${meanRestart.toFixed(0)} ms each), ${seconds.toFixed(0)} s, ${CLIENTS} clients`,
      `process exits during the run: ${service.exits.length}${service.exits.length ? ` (${service.exits.join(', ')})` : ''}; exits on SIGTERM after the run: ${stopStatus}, ${secondStop}`,
      `requests: ${tally.sent}; delivered: ${audit.delivered} (${[...byKind.entries()].map(([k, v]) => `${k} ${v}`).join(', ')})`,
      `not delivered: ${refused.length === 0 ? 'none' : refused.map(([k, v]) => `${k} x${v}`).join(', ')}`,
      `answers "pending" (handed to the job queue), each polled up to 60 s: ${tally.queued.length}; their generations when the load stopped: ${queued.map((r) => `${r.status} ${r.n}`).join(', ') || '-'}`,
      `delivered and billed: ${audit.billed} of ${audit.delivered}; unbilled delivered: ${audit.unbilled.length}`,
      `charged twice: ${audit.chargedTwice.length} (of ${tally.idempotentTags.length} Idempotency-Keys and every other request)`,
      `ledger drift: ${audit.drift} tokens over ${audit.accounts} accounts`,
      `pending after the load: ${left.n}${settledRunning ? '' : ' (not settled within 30 s while running)'}; after a restart of the service: ${audit.pendingGenerations} generations pending, ${audit.openHolds} holds open${settled ? '' : ' (not settled within 60 s)'}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (RESTARTS >= 20) {
      writeSection(path.join(ROOT, 'bench', 'results.md'), '## PostgreSQL restarts under load', resultsBody(lines));
      log('written to bench/results.md');
    }
    for (const d of audit.unbilled.slice(0, 10)) log(`unbilled: ${JSON.stringify(d)}`);
    for (const tag of audit.chargedTwice.slice(0, 10)) log(`charged twice: [pgr:${tag}]`);
    failed =
      service.exits.length > 0 ||
      stopStatus !== 'code 0' ||
      secondStop !== 'code 0' ||
      audit.unbilled.length > 0 ||
      audit.chargedTwice.length > 0 ||
      audit.drift !== 0;
  } finally {
    await service.child?.stop().catch(() => undefined);
    await redis.stop().catch(() => undefined);
    await cluster.stop().catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

main().catch((err: Error) => {
  process.stderr.write(`pg-restarts failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
