import Redis from 'ioredis';

/** The Redis used by tests: REDIS_URL, else a local default; undefined when none answers (the Redis cases skip). */
export async function connectTestRedis(): Promise<Redis | undefined> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch {
    redis.disconnect();
    return undefined;
  }
}
