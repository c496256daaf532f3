import Redis from 'ioredis';
import { metricsRegistry } from '../../src/core/ops/metrics';
import { avoidWindowEdge } from '../api/harness';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { OwnRedis, startOwnRedis } from '../support/own-redis';
import { Instance, startInstance } from './instance';

// A Redis frozen with SIGSTOP (socket open, no answers): requests fall back to PostgreSQL within the command
// timeout, and one hourly limit of 30 holds across the failover and the recovery.

let db: TestDatabase;
let redis: OwnRedis;
let app: Instance;
const plan = { slug: 'basic', rateLimitHourly: 30, rateLimitDaily: 500 };

beforeAll(async () => {
  db = await createTestDatabase();
  redis = await startOwnRedis();
  app = await startInstance({ databaseUrl: db.url, env: { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '300' } });
});
afterAll(async () => {
  await app?.close();
  await redis?.stop();
  await db?.drop();
});

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await f();
  return { value, ms: Date.now() - start };
}

test('frozen Redis: each request answers within the timeout, and 30 of 60 are admitted across failover and recovery', async () => {
  await avoidWindowEdge(3600, 60);
  const limiter = app.services.limiter;
  const userId = 900_001;
  let admitted = 0;

  for (let i = 0; i < 15; i++) if ((await limiter.consume(userId, plan)).allowed) admitted += 1;
  expect(admitted).toBe(15);

  redis.freeze();
  const latencies: number[] = [];
  for (let i = 0; i < 20; i++) {
    const { value, ms } = await timed(() => limiter.consume(userId, plan));
    latencies.push(ms);
    if (value.allowed) admitted += 1;
  }
  expect(Math.max(...latencies)).toBeLessThan(1500); // 300 ms timeout + PostgreSQL
  expect(admitted).toBe(30);
  expect(app.logs.some((l) => l.includes('rate counters moved to PostgreSQL'))).toBe(true);
  // Still ready (the counters serve from PostgreSQL), and the body says degraded.
  const ready = await fetch(`${app.baseUrl}/health/ready`);
  expect(ready.status).toBe(200);
  const report = (await ready.json()) as { status: string; checks: Record<string, string> };
  expect(report.status).toBe('degraded');
  expect(report.checks.redis).not.toBe('ok');
  expect(report.checks.database).toBe('ok');
  expect(await metricsRegistry.getSingleMetricAsString('nebula_rate_counters_on_postgres')).toMatch(/nebula_rate_counters_on_postgres 1/);

  redis.thaw();
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !app.logs.some((l) => l.includes('rate counters back on Redis'))) {
    if ((await limiter.consume(userId, plan)).allowed) admitted += 1;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(app.logs.some((l) => l.includes('rate counters back on Redis'))).toBe(true);
  for (let i = 0; i < 10; i++) if ((await limiter.consume(userId, plan)).allowed) admitted += 1;
  expect(admitted).toBe(30);

  // Redis itself now holds the full count.
  const direct = new Redis(redis.url);
  const keys = await direct.keys(`ng:rl:u:${userId}:hour:*`);
  expect(Number(await direct.get(keys[0]))).toBeGreaterThanOrEqual(30);
  direct.disconnect();
  const peek = await limiter.peek(userId, plan);
  expect(peek.remainingHour).toBe(0);
  expect(await metricsRegistry.getSingleMetricAsString('nebula_rate_counters_on_postgres')).toMatch(/nebula_rate_counters_on_postgres 0/);
}, 45_000);
