import crypto from 'node:crypto';
import Redis from 'ioredis';
import { CounterModes } from '../../src/core/limits/counter-mode';
import { FailoverCounterStore } from '../../src/core/limits/failover-store';
import { PostgresCounterStore } from '../../src/core/limits/postgres-store';
import { RateLimiter } from '../../src/core/limits/rate-limiter';
import { RedisCounterStore } from '../../src/core/limits/redis-store';
import { CounterStore } from '../../src/core/limits/types';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { connectTestRedis } from '../support/redis';

let db: TestDatabase;
let redis: Redis | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  redis = await connectTestRedis();
  if (!redis) console.warn('Redis not reachable: the Redis counter cases are skipped');
});
afterAll(async () => {
  redis?.disconnect();
  await db.drop();
});

const plan = { slug: 'free', rateLimitHourly: 5, rateLimitDaily: 7 };
// 2026-11-22T10:59:30Z: 30 s before the hour turns.
const fixedNow = Date.UTC(2026, 10, 22, 10, 59, 30);

function uniqueUser(): number {
  return crypto.randomInt(1, 2 ** 31 - 1);
}

const stores: [string, () => CounterStore | undefined][] = [
  ['postgres', () => new PostgresCounterStore(db.dataSource)],
  [
    'redis',
    () =>
      redis
        ? new FailoverCounterStore(
            new RedisCounterStore(redis, `test:${crypto.randomUUID()}:`),
            new PostgresCounterStore(db.dataSource),
            new CounterModes(db.dataSource, db.dataSource),
          )
        : undefined,
  ],
];

describe.each(stores)('%s counters', (_name, makeStore) => {
  test('admits up to the hourly limit, then refuses with the reset at the next hour', async () => {
    const store = makeStore();
    if (!store) return;
    const limiter = new RateLimiter(store, () => fixedNow);
    const user = uniqueUser();
    for (let i = 1; i <= 5; i++) {
      const d = await limiter.consume(user, plan);
      expect(d).toMatchObject({ allowed: true, remainingHour: 5 - i, remainingDay: 7 - i, limitHour: 5, limitDay: 7 });
    }
    const refused = await limiter.consume(user, plan);
    expect(refused.allowed).toBe(false);
    expect(refused.resetHour).toBe(Date.UTC(2026, 10, 22, 11, 0, 0) / 1000);
    expect(refused.retryAfter).toBe(30);
    expect((await limiter.peek(user, plan)).remainingDay).toBe(2);
  });

  test('the daily limit refuses with the time until midnight UTC', async () => {
    const store = makeStore();
    if (!store) return;
    const user = uniqueUser();
    const early = new RateLimiter(store, () => fixedNow);
    for (let i = 0; i < 5; i++) expect((await early.consume(user, plan)).allowed).toBe(true);
    const nextHour = new RateLimiter(store, () => fixedNow + 60_000);
    expect((await nextHour.consume(user, plan)).allowed).toBe(true);
    expect((await nextHour.consume(user, plan)).allowed).toBe(true);
    const refused = await nextHour.consume(user, plan);
    expect(refused).toMatchObject({ allowed: false, remainingDay: 0, resetDay: Date.UTC(2026, 10, 23) / 1000 });
    expect(refused.retryAfter).toBe((Date.UTC(2026, 10, 23) - (fixedNow + 60_000)) / 1000);
  });

  test('50 parallel requests never admit more than the limit', async () => {
    const store = makeStore();
    if (!store) return;
    const limiter = new RateLimiter(store, () => fixedNow);
    const user = uniqueUser();
    const results = await Promise.all(Array.from({ length: 50 }, () => limiter.consume(user, plan)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    expect((await limiter.peek(user, plan)).remainingHour).toBe(0);
  });

  test('unlimited plans (0) are never refused', async () => {
    const store = makeStore();
    if (!store) return;
    const limiter = new RateLimiter(store, () => fixedNow);
    const elite = { slug: 'elite', rateLimitHourly: 0, rateLimitDaily: 0 };
    const user = uniqueUser();
    const results = await Promise.all(Array.from({ length: 30 }, () => limiter.consume(user, elite)));
    expect(results.every((r) => r.allowed)).toBe(true);
  });
});

test('when Redis fails mid-flight the requests are counted in PostgreSQL, and the limit still holds', async () => {
  const broken = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  const failures: string[] = [];
  const pg = new PostgresCounterStore(db.dataSource);
  const store = new FailoverCounterStore(new RedisCounterStore(broken), pg, new CounterModes(db.dataSource, db.dataSource), {
    connectWaitMs: 0,
    onFailover: (reason) => failures.push(reason),
  });
  const limiter = new RateLimiter(store, () => fixedNow);
  const user = uniqueUser();
  const results = await Promise.all(Array.from({ length: 8 }, () => limiter.consume(user, plan)));
  expect(results.filter((r) => r.allowed)).toHaveLength(5);
  expect(failures.length).toBeGreaterThan(0);
  // The PostgreSQL store saw the five admitted requests.
  expect((await new RateLimiter(pg, () => fixedNow).peek(user, plan)).remainingHour).toBe(0);
  broken.disconnect();
});
