import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { Client } from 'pg';

const run = promisify(execFile);

/** A throwaway PostgreSQL database on the server of `adminUrl`, created for one bench run. */
export class BenchDatabase {
  private constructor(
    private readonly adminUrl: string,
    readonly name: string,
    readonly url: string,
  ) {}

  static async create(adminUrl: string): Promise<BenchDatabase> {
    const name = `nebula_bench_${Date.now()}_${process.pid}`;
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}"`);
    } finally {
      await admin.end();
    }
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return new BenchDatabase(adminUrl, name, url.toString());
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const c = new Client({ connectionString: this.url });
    await c.connect();
    try {
      return (await c.query(sql, params)).rows as T[];
    } finally {
      await c.end();
    }
  }

  /** Server processes currently connected to this database (the service's pool), for CPU accounting. */
  async backendPids(): Promise<number[]> {
    const rows = await this.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((r) => r.pid);
  }

  async drop(): Promise<void> {
    const admin = new Client({ connectionString: this.adminUrl });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${this.name}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
}

/** True when something answers PING at host:port with +PONG within a second. */
export function redisReachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** Deletes the service's rate counters of these users (`ng:rl:u:<id>:*`) in one Redis database. */
export async function clearRateCounters(redisUrl: string, userIds: number[]): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let deleted = 0;
  try {
    for (const id of userIds) {
      const keys = await redis.keys(`ng:rl:u:${id}:*`);
      if (keys.length > 0) deleted += await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/** Billing modes the bench passes on to the service when set (before/after comparisons, README). */
const PASSED_ON = ['BILLING_BATCH', 'BILLING_SETTLE_COMMIT'] as const;

/** Where one service under test listens, keeps its files and finds its database, Redis and the mock upstream. */
export interface ServicePlacement {
  port: number;
  dataDir: string;
  databaseUrl: string;
  mockUrl: string;
  redisUrl?: string;
}

/** The environment an operator would give the service, plus secrets made up for this run. */
export function serviceEnv(base: NodeJS.ProcessEnv, at: ServicePlacement, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: base.PATH,
    HOME: base.HOME,
    ...Object.fromEntries(PASSED_ON.filter((k) => base[k] !== undefined).map((k) => [k, base[k]])),
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    API_KEY_PEPPER: crypto.randomBytes(32).toString('hex'),
    PORT: String(at.port),
    HOST: '127.0.0.1',
    DATA_DIR: at.dataDir,
    DATABASE_URL: at.databaseUrl,
    OPENAI_BASE_URL: `${at.mockUrl}/v1`,
    OPENAI_API_KEY: 'x',
    ...(at.redisUrl ? { REDIS_URL: at.redisUrl } : {}),
    ...extra,
  };
}

export interface BenchUser {
  id: number;
  plan: string;
  key: string;
}

/** `user:create` then `key:create` through the operator CLI (`node dist/src/cli.js`). */
export async function createUserWithKey(cwd: string, env: NodeJS.ProcessEnv, plan: string, tokens: number): Promise<BenchUser> {
  const cli = (args: string[]) => run(process.execPath, ['dist/src/cli.js', ...args], { cwd, env, timeout: 60_000 });
  const email = `bench-${plan}-${Date.now()}@example.com`;
  const created = await cli(['user:create', '--email', email, '--plan', plan, '--tokens', String(tokens)]);
  const user = JSON.parse(created.stdout) as { id: number; plan: string };
  const key = await cli(['key:create', '--user', String(user.id), '--name', `bench ${plan}`]);
  return { id: user.id, plan: user.plan, key: (JSON.parse(key.stdout) as { key: string }).key };
}

export interface BillingCheck {
  userId: number;
  successfulRequests: number;
  completed: number;
  pending: number;
  failed: number;
  reserveRows: number;
  settleRows: number;
  settledReservations: number;
  /** Holds taken back because the request was refused after them (rate limit): released, no generation row. */
  withdrawn: number;
  /** Reservations still open after the run (must be 0). */
  openHolds: number;
  unbilled: number;
  tokensSpent: number;
  /** Sum of the user's ledger rows equals the stored balance. */
  ledgerMatchesBalance: boolean;
  ok: boolean;
}

const count = (rows: { n: string }[]) => Number(rows[0]?.n ?? 0);

/** Every successful request must be one completed, settled, charged generation with its two ledger rows. */
export async function checkBilling(db: BenchDatabase, userId: number, successfulRequests: number): Promise<BillingCheck> {
  const byStatus = await db.query<{ status: string; n: string }>(
    `SELECT status, count(*) AS n FROM generations WHERE user_id = $1 AND source = 'v1' GROUP BY status`,
    [userId],
  );
  const status = (s: string) => Number(byStatus.find((r) => r.status === s)?.n ?? 0);
  const ledger = await db.query<{ kind: string; n: string }>(
    `SELECT kind, count(*) AS n FROM ledger_entries WHERE user_id = $1 AND reference LIKE 'gen:%' GROUP BY kind`,
    [userId],
  );
  const kind = (k: string) => Number(ledger.find((r) => r.kind === k)?.n ?? 0);
  const settledReservations = count(
    await db.query(`SELECT count(*) AS n FROM token_reservations WHERE user_id = $1 AND status = 'settled'`, [userId]),
  );
  const withdrawn = count(
    await db.query(
      `SELECT count(*) AS n FROM ledger_entries l WHERE l.user_id = $1 AND l.kind = 'release' AND l.reference LIKE 'gen:%'
          AND NOT EXISTS (SELECT 1 FROM generations g WHERE 'gen:' || g.id = l.reference)`,
      [userId],
    ),
  );
  const openHolds = count(
    await db.query(`SELECT count(*) AS n FROM token_reservations WHERE user_id = $1 AND status = 'reserved'`, [userId]),
  );
  const unbilled = count(
    await db.query(`SELECT count(*) AS n FROM generations WHERE user_id = $1 AND status = 'completed' AND tokens_spent <= 0`, [userId]),
  );
  const spent = await db.query<{ s: string | null }>(`SELECT sum(tokens_spent) AS s FROM generations WHERE user_id = $1`, [userId]);
  const balance = await db.query<{ ledger: string; stored: string }>(
    `SELECT (SELECT coalesce(sum(plan_delta + bonus_delta), 0) FROM ledger_entries WHERE user_id = $1) AS ledger,
            (SELECT plan_tokens + bonus_tokens FROM balances WHERE user_id = $1) AS stored`,
    [userId],
  );
  const check: Omit<BillingCheck, 'ok'> = {
    userId,
    successfulRequests,
    completed: status('completed'),
    pending: status('pending'),
    failed: status('failed'),
    reserveRows: kind('reserve'),
    settleRows: kind('settle'),
    settledReservations,
    withdrawn,
    openHolds,
    unbilled,
    tokensSpent: Number(spent[0]?.s ?? 0),
    ledgerMatchesBalance: Number(balance[0]?.ledger) === Number(balance[0]?.stored),
  };
  const ok =
    check.completed === successfulRequests &&
    check.pending === 0 &&
    check.reserveRows === successfulRequests + check.failed + check.withdrawn &&
    check.openHolds === 0 &&
    check.settleRows === successfulRequests &&
    check.settledReservations === successfulRequests &&
    check.unbilled === 0 &&
    check.ledgerMatchesBalance;
  return { ...check, ok };
}
