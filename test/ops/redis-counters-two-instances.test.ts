import Redis from 'ioredis';
import { avoidWindowEdge } from '../api/harness';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { OwnRedis, startOwnRedis } from '../support/own-redis';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { eventually } from '../support/wait';
import { Instance, startInstance } from './instance';

// Two instances share one PostgreSQL and one redis-server of the test's own, reached through a TCP proxy (so the
// server behind the address can be replaced, as a failover does). An hourly limit of 30 admits at most 30 across
// both instances whatever happens to Redis: replaced by an empty one, restarted empty on the same port, down for a
// while and then a new one, frozen during parallel bursts, or failed over to a replica that is behind.

let db: TestDatabase;
let redis: OwnRedis;
let proxy: TcpProxy;
let a: Instance;
let b: Instance;
const spare: OwnRedis[] = [];
const plan = { slug: 'basic', rateLimitHourly: 30, rateLimitDaily: 500 };
let nextUser = 910_000;

beforeAll(async () => {
  db = await createTestDatabase();
  redis = await startOwnRedis();
  proxy = await startTcpProxy('127.0.0.1', redis.port);
  const env = { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_COMMAND_TIMEOUT_MS: '300' };
  a = await startInstance({ databaseUrl: db.url, env: { ...env, INSTANCE_ID: 'counters-a' } });
  b = await startInstance({ databaseUrl: db.url, env: { ...env, INSTANCE_ID: 'counters-b' } });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await proxy?.close();
  for (const r of [redis, ...spare]) await r?.stop();
  await db?.drop();
});

/** One request counted on instance a or b in turn; true when admitted. */
async function consume(userId: number, i: number): Promise<boolean> {
  return (await (i % 2 === 0 ? a : b).services.limiter.consume(userId, plan)).allowed;
}

async function sequential(userId: number, n: number, from = 0): Promise<number> {
  let admitted = 0;
  for (let i = from; i < from + n; i++) if (await consume(userId, i)) admitted += 1;
  return admitted;
}

/** Resolves once both instances lost their Redis connection and connected again (to whatever is behind the proxy). */
function bothReconnect(): Promise<unknown> {
  return Promise.all(
    [a, b].map(
      (instance) => new Promise((resolve) => instance.services.redis!.once('close', () => instance.services.redis!.once('ready', resolve))),
    ),
  );
}

const failovers = () => logged(a, 'moved to PostgreSQL') + logged(b, 'moved to PostgreSQL');

const logged = (instance: Instance, text: string) => instance.logs.filter((l) => l.includes(text)).length;

/** Replaces the server behind the proxy by `next` and kills the old one. */
async function replaceBy(next: OwnRedis): Promise<void> {
  proxy.retarget('127.0.0.1', next.port);
  const old = redis;
  redis = next;
  await old.stop();
}

function direct(r: OwnRedis): Redis {
  return new Redis(r.url, { maxRetriesPerRequest: 1 });
}

beforeEach(() => avoidWindowEdge(3600, 90));

test('Redis replaced by an empty one after 12 requests: 30 of 42 admitted, the new Redis restored first', async () => {
  const user = nextUser++;
  const restoredBefore = logged(a, 'restored into Redis') + logged(b, 'restored into Redis');
  let admitted = await sequential(user, 12);
  expect(admitted).toBe(12);
  const fresh = await startOwnRedis();
  spare.push(fresh);
  const reconnected = bothReconnect();
  await replaceBy(fresh);
  await reconnected;
  const failoversBefore = failovers();
  admitted += await sequential(user, 30, 12);
  expect(admitted).toBe(30);
  // Noticed on the new Redis itself (no command failed): restored before anything was counted on it.
  expect(failovers()).toBe(failoversBefore);
  expect(logged(a, 'restored into Redis') + logged(b, 'restored into Redis')).toBeGreaterThan(restoredBefore);
  // The new Redis holds the full count.
  const check = direct(fresh);
  const [key] = await check.keys(`ng:rl:u:${user}:hour:*`);
  expect(Number(await check.get(key))).toBe(30);
  check.disconnect();
}, 60_000);

test('Redis restarted empty on the same port after 12 requests: 30 of 42 admitted', async () => {
  const user = nextUser++;
  let admitted = await sequential(user, 12);
  const reconnected = bothReconnect();
  await redis.restart();
  await reconnected;
  const failoversBefore = failovers();
  admitted += await sequential(user, 30, 12);
  expect(admitted).toBe(30);
  expect(failovers()).toBe(failoversBefore);
}, 60_000);

test('Redis down for 10 requests, then a new one: 30 of 50 admitted, back on Redis on both instances', async () => {
  const user = nextUser++;
  const backBefore = [logged(a, 'back on Redis'), logged(b, 'back on Redis')];
  let admitted = await sequential(user, 12);
  await redis.stop();
  admitted += await sequential(user, 10, 12);
  expect(admitted).toBe(22);
  const fresh = await startOwnRedis();
  spare.push(fresh);
  await replaceBy(fresh);
  let i = 22;
  while (logged(a, 'back on Redis') === backBefore[0] || logged(b, 'back on Redis') === backBefore[1]) {
    if (await consume(user, i++)) admitted += 1;
    await new Promise((r) => setTimeout(r, 100));
    if (i > 400) throw new Error('the instances did not come back to Redis');
  }
  admitted += await sequential(user, 10, i);
  expect(admitted).toBe(30);
}, 90_000);

test('Redis frozen during parallel bursts on both instances: at most 30 admitted; both ready (degraded) meanwhile', async () => {
  const user = nextUser++;
  const backBefore = [logged(a, 'back on Redis'), logged(b, 'back on Redis')];
  let bursts = 0;
  const burst = async () => {
    bursts += 1;
    return (await Promise.all(Array.from({ length: 16 }, (_, i) => consume(user, i)))).filter(Boolean).length;
  };
  let admitted = await burst();
  // Frozen while the second burst is in flight: its commands time out, and may still run once Redis thaws.
  const second = burst();
  await new Promise((r) => setImmediate(r));
  redis.freeze();
  admitted += await second;
  admitted += await burst();
  for (const instance of [a, b]) {
    const ready = await fetch(`${instance.baseUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe('degraded');
  }
  redis.thaw();
  // Bursts go on until both instances count on Redis again (restored first), then two more.
  while (logged(a, 'back on Redis') === backBefore[0] || logged(b, 'back on Redis') === backBefore[1]) {
    admitted += await burst();
    await new Promise((r) => setTimeout(r, 100));
    if (bursts > 200) throw new Error('the instances did not come back to Redis');
  }
  admitted += (await burst()) + (await burst());
  expect(admitted).toBeLessThanOrEqual(30);
  console.log(`Redis frozen during parallel bursts: ${admitted} of ${16 * bursts} admitted at a limit of 30`);
}, 90_000);

test('failover to a replica that is behind (another server, same address): 30 admitted, not 38', async () => {
  const user = nextUser++;
  let admitted = await sequential(user, 12);
  // A replica takes a copy (counts and marker), then stops following: it stays at 12 while the primary goes on.
  const replica = await startOwnRedis();
  spare.push(replica);
  const follower = direct(replica);
  await follower.call('REPLICAOF', '127.0.0.1', String(redis.port));
  await eventually(async () => {
    const info = await follower.info('replication');
    return /master_link_status:up/.test(info) && !/master_sync_in_progress:1/.test(info) ? true : undefined;
  });
  const [key] = await follower.keys(`ng:rl:u:${user}:hour:*`);
  await eventually(async () => (Number(await follower.get(key)) === 12 ? true : undefined));
  await follower.call('REPLICAOF', 'NO', 'ONE');
  follower.disconnect();
  admitted += await sequential(user, 8, 12);
  expect(admitted).toBe(20);
  const reconnected = bothReconnect();
  await replaceBy(replica);
  await reconnected;
  const failoversBefore = failovers();
  admitted += await sequential(user, 30, 20);
  expect(admitted).toBe(30);
  // Its marker is the current one (replicated): only its run id tells it is another server, behind.
  expect(failovers()).toBe(failoversBefore);
}, 60_000);
