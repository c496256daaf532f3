import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Child, freePort } from './lib/child';
import { RedisServer } from './lib/redis-server';
import { BenchDatabase, BenchUser, createUserWithKey } from './lib/service-fixture';

// `npm run bench:soak -- [--seconds N]` (default 180): two instances of the service (`node dist/src/main.js`, the
// built-in sandbox vendors) sharing a fresh PostgreSQL database, a redis-server of the soak's own and an s3rver
// bucket (STORAGE=s3). Several accounts send a mix of streamed chats and image generations for the whole run;
// at one third instance A is restarted (SIGTERM, drained, started again), at two thirds Redis is replaced by an
// empty one. Two accounts on a 30/h plan keep asking past their limit. Prints what was served, errors by status,
// ledger drift (each account's ledger sum against its balance), answers received but not billed, answers billed
// twice, and what the limited accounts were admitted. Exits 1 on drift, an unbilled or twice-billed answer, or a
// limit exceeded. PostgreSQL: BENCH_PG_ADMIN_URL (default the tests' server); redis-server must be installed.

const ROOT = path.resolve(__dirname, '..', '..');
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const secondsArg = process.argv.indexOf('--seconds');
const SECONDS = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 180;
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 8);
const LIMITED_PLAN = { slug: 'basic', hourly: 30 };

const run = promisify(execFile);
const log = (msg: string) => process.stderr.write(`[soak] ${msg}\n`);

// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };

interface Instance {
  name: string;
  port: number;
  env: NodeJS.ProcessEnv;
  child: Child;
  up: boolean;
}

interface Received {
  kind: 'stream' | 'image';
  generationId: number;
  userId: number;
  tokensSpent: number;
}

class Tally {
  readonly received: Received[] = [];
  readonly errors = new Map<string, number>();
  limitedAdmitted = 0;
  limitedRefused = 0;
  crossInstanceFiles = 0;

  error(what: string): void {
    this.errors.set(what, (this.errors.get(what) ?? 0) + 1);
  }
}

async function startInstance(instance: Omit<Instance, 'child' | 'up'>): Promise<Instance> {
  const child = Child.start(instance.name, process.execPath, ['dist/src/main.js'], { env: instance.env, cwd: ROOT });
  await child.waitForHttp(`http://127.0.0.1:${instance.port}/health/ready`, 120_000, 200);
  return { ...instance, child, up: true };
}

/** One streamed chat to its end; what the client received is recorded. */
async function stream(base: string, user: BenchUser, n: number, tally: Tally): Promise<void> {
  const res = await fetch(`${base}/api/v2/generate/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', prompt: `Tell me about tides, soak request ${n}` }),
  });
  if (res.status !== 200) {
    await res.arrayBuffer().catch(() => undefined);
    return tally.error(`stream ${res.status}`);
  }
  const text = await res.text();
  const end = /event: generation_end\ndata: (.*)/.exec(text);
  if (!end) return tally.error('stream cut without its end');
  const data = JSON.parse(end[1]) as { generation_id: number; status: string; tokens_spent: number };
  if (data.status !== 'completed') return tally.error(`stream ${data.status}`);
  tally.received.push({ kind: 'stream', generationId: data.generation_id, userId: user.id, tokensSpent: data.tokens_spent });
}

/** One image; its file is then read through the other instance (the bucket is shared). */
async function image(base: string, other: string | undefined, user: BenchUser, n: number, tally: Tally): Promise<void> {
  const res = await fetch(`${base}/api/v2/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'flux-dev', prompt: `a lighthouse at dusk, soak request ${n}` }),
  });
  const body = (await res.json().catch(() => ({}))) as { id?: number; status?: string; tokens_spent?: number; result_url?: string };
  if (res.status !== 200 || body.status !== 'completed' || !body.id) return tally.error(`image ${res.status} ${body.status ?? ''}`.trim());
  tally.received.push({ kind: 'image', generationId: body.id, userId: user.id, tokensSpent: body.tokens_spent ?? 0 });
  if (!other || !body.result_url) return;
  const file = await fetch(body.result_url.replace(/^https?:\/\/[^/]+/, other)).catch(() => undefined);
  await file?.arrayBuffer().catch(() => undefined);
  if (file?.status === 200) tally.crossInstanceFiles += 1;
  else tally.error(`file through the other instance ${file?.status ?? 'unreachable'}`);
}

/** A limited account asking once: counts what its 30/h plan admitted (a 429 is the expected answer past it). */
async function limited(base: string, user: BenchUser, tally: Tally): Promise<void> {
  const res = await fetch(`${base}/api/v2/generate/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', prompt: 'One short line, please', max_tokens: 16 }),
  });
  await res.text().catch(() => undefined);
  if (res.status === 200) tally.limitedAdmitted += 1;
  else if (res.status === 429) tally.limitedRefused += 1;
  else tally.error(`limited account ${res.status}`);
}

/** A user who signs in with a password (plans below VIP have no API keys): its access token serves as its key. */
async function signedInUser(env: NodeJS.ProcessEnv, base: string, plan: string): Promise<BenchUser> {
  const email = `soak-${plan}-${crypto.randomBytes(4).toString('hex')}@example.com`;
  const password = crypto.randomBytes(12).toString('hex');
  const created = await run(
    process.execPath,
    ['dist/src/cli.js', 'user:create', '--email', email, '--password', password, '--plan', plan],
    {
      cwd: ROOT,
      env,
      timeout: 60_000,
    },
  );
  const user = JSON.parse(created.stdout) as { id: number };
  const res = await fetch(`${base}/api/v2/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return { id: user.id, plan, key: ((await res.json()) as { access_token: string }).access_token };
}

async function main(): Promise<void> {
  if (!Number.isFinite(SECONDS) || SECONDS < 10) throw new Error('--seconds must be at least 10');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-soak-'));
  const db = await BenchDatabase.create(ADMIN_URL);
  const redis = await RedisServer.start(await freePort());
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: path.join(work, 's3'),
    configureBuckets: [{ name: 'soak' }],
  });
  const s3Port = (await s3.run()).port;
  const instances: Instance[] = [];
  const shared = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    SANDBOX: '1',
    SANDBOX_CHUNK_DELAY_MS: '40',
    LOG_LEVEL: 'warn',
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    API_KEY_PEPPER: crypto.randomBytes(32).toString('hex'),
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    STORAGE: 's3',
    S3_BUCKET: 'soak',
    S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: '1',
  };
  let failed = false;
  try {
    for (const name of ['a', 'b']) {
      const port = await freePort();
      const env = { ...shared, PORT: String(port), DATA_DIR: path.join(work, name), INSTANCE_ID: `soak-${name}` };
      instances.push(await startInstance({ name, port, env }));
    }
    const cliEnv = instances[0].env;
    const users: BenchUser[] = [];
    for (let i = 0; i < 6; i++) users.push(await createUserWithKey(ROOT, cliEnv, 'elite', 10_000_000));
    const limitedUsers: BenchUser[] = [];
    for (let i = 0; i < 2; i++) limitedUsers.push(await signedInUser(cliEnv, `http://127.0.0.1:${instances[0].port}`, LIMITED_PLAN.slug));
    log(`2 instances, ${users.length} accounts + ${limitedUsers.length} on ${LIMITED_PLAN.slug}, ${CLIENTS} clients, ${SECONDS} s`);

    const tally = new Tally();
    const started = Date.now();
    const deadline = started + SECONDS * 1000;
    let turn = 0;
    const pick = () => {
      const up = instances.filter((i) => i.up);
      const chosen = up[turn % up.length];
      const other = up.find((i) => i !== chosen);
      return { base: `http://127.0.0.1:${chosen.port}`, other: other ? `http://127.0.0.1:${other.port}` : undefined };
    };
    const client = async (c: number) => {
      for (let n = c; Date.now() < deadline; n += CLIENTS) {
        turn += 1;
        const { base, other } = pick();
        const user = users[n % users.length];
        try {
          if (n % 5 === 4) await limited(base, limitedUsers[Math.floor(n / 5) % limitedUsers.length], tally);
          else if (n % 5 < 3) await stream(base, user, n, tally);
          else await image(base, other, user, n, tally);
        } catch (err) {
          tally.error(`connection: ${(err as Error).message}`);
        }
      }
    };
    const events = (async () => {
      await new Promise((r) => setTimeout(r, (SECONDS * 1000) / 3));
      const a = instances[0];
      a.up = false; // out of the rotation first, as a load balancer reading /health/ready takes it out
      const stopAt = Date.now();
      await a.child.stop(30_000);
      log(`instance a stopped (${a.child.exitStatus}) in ${Date.now() - stopAt} ms at ${Math.round((stopAt - started) / 1000)} s`);
      if (a.child.exitStatus !== 'code 0') tally.error(`instance a exit ${a.child.exitStatus}`);
      instances[0] = await startInstance({ name: a.name, port: a.port, env: a.env });
      log(`instance a back after ${Date.now() - stopAt} ms`);
      await new Promise((r) => setTimeout(r, Math.max(0, started + (2 * SECONDS * 1000) / 3 - Date.now())));
      await redis.replace();
      log(`Redis replaced by an empty one at ${Math.round((Date.now() - started) / 1000)} s`);
    })();
    await Promise.all([...Array.from({ length: CLIENTS }, (_, c) => client(c)), events]);
    const elapsed = (Date.now() - started) / 1000;

    // Everything the clients received is settled by now (streams billed before their end event, images before
    // their answer); the rest (drained holds) is left as it is.
    const ids = tally.received.map((r) => r.generationId);
    const billed = await db.query<{ id: number; tokens_spent: number; settles: string }>(
      `SELECT g.id, g.tokens_spent,
              (SELECT count(*) FROM ledger_entries l WHERE l.reference = 'gen:' || g.id AND l.kind = 'settle') AS settles
         FROM generations g WHERE g.id = ANY($1::int[]) AND g.status = 'completed'`,
      [ids],
    );
    const byId = new Map(billed.map((r) => [r.id, r]));
    const unbilled = tally.received.filter((r) => {
      const row = byId.get(r.generationId);
      return !row || row.tokens_spent !== r.tokensSpent || Number(row.settles) === 0;
    });
    const twice = billed.filter((r) => Number(r.settles) > 1).length;
    const drift = await db.query<{ accounts: string; drift: string }>(
      `SELECT count(*) AS accounts, coalesce(sum(abs(coalesce(l.total, 0) - (b.plan_tokens + b.bonus_tokens))), 0) AS drift
         FROM balances b
         LEFT JOIN (SELECT user_id, sum(plan_delta + bonus_delta) AS total FROM ledger_entries GROUP BY user_id) l USING (user_id)`,
    );
    const openHolds = await db.query<{ n: string }>(`SELECT count(*) AS n FROM token_reservations WHERE status = 'reserved'`);
    // Per hourly window (a run may cross the hour): the most any one window admitted.
    const limitedRows = await db.query<{ user_id: number; n: string }>(
      `SELECT user_id, max(n) AS n FROM (
         SELECT user_id, count(*) AS n FROM generations WHERE user_id = ANY($1::int[]) GROUP BY user_id, date_trunc('hour', created_at)
       ) w GROUP BY user_id`,
      [limitedUsers.map((u) => u.id)],
    );
    const admitted = limitedUsers.map((u) => Number(limitedRows.find((r) => r.user_id === u.id)?.n ?? 0));

    const streams = tally.received.filter((r) => r.kind === 'stream').length;
    const images = tally.received.length - streams;
    const errors = [...tally.errors.entries()].sort((x, y) => y[1] - x[1]);
    const lines = [
      `soak: ${elapsed.toFixed(0)} s, 2 instances (a restarted at ${Math.round(SECONDS / 3)} s), Redis replaced at ${Math.round((2 * SECONDS) / 3)} s`,
      `served: ${tally.received.length} (${streams} streams, ${images} images; ${tally.crossInstanceFiles} image files read through the other instance)`,
      `errors by status: ${errors.length === 0 ? 'none' : errors.map(([k, v]) => `${k} x${v}`).join(', ')}`,
      `ledger drift: ${Number(drift[0].drift)} tokens over ${drift[0].accounts} accounts`,
      `unbilled answers: ${unbilled.length} of ${tally.received.length}`,
      `billed twice: ${twice}`,
      `holds still open: ${openHolds[0].n}`,
      `limited accounts (${LIMITED_PLAN.slug}, ${LIMITED_PLAN.hourly}/h): at most ${admitted.join(' and ')} admitted in an hour (${tally.limitedAdmitted} answered 200, ${tally.limitedRefused} refused 429)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    for (const r of unbilled.slice(0, 10)) log(`unbilled: ${JSON.stringify(r)}`);
    failed = Number(drift[0].drift) !== 0 || unbilled.length > 0 || twice > 0 || admitted.some((n) => n > LIMITED_PLAN.hourly);
  } finally {
    await Promise.all(instances.map((i) => i.child.stop().catch(() => undefined)));
    await redis.stop().catch(() => undefined);
    await s3.close().catch(() => undefined);
    await db.drop().catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

main().catch((err: Error) => {
  process.stderr.write(`soak failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
