import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig } from './config';
import { ApiKeyService } from './core/accounts/api-keys';
import { PlanDirectory } from './core/accounts/plans';
import { FailoverCounterStore } from './core/limits/failover-store';
import { PostgresCounterStore } from './core/limits/postgres-store';
import { RateLimiter } from './core/limits/rate-limiter';
import { RedisCounterStore } from './core/limits/redis-store';
import { CounterStore } from './core/limits/types';
import type { Logger } from './logger';

/** Everything the front ends and workers share, built once per process. */
export interface Services {
  config: AppConfig;
  log: Logger;
  ds: DataSource;
  redis?: Redis;
  plans: PlanDirectory;
  limiter: RateLimiter;
  apiKeys: ApiKeyService;
  close(): Promise<void>;
}

function connectRedis(url: string, log: Logger): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
  });
  let down = false;
  redis.on('error', (err) => {
    if (!down) log.warn({ err: err.message }, 'Redis unavailable: rate counters fall back to PostgreSQL');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info('Redis is back');
    down = false;
  });
  return redis;
}

export function createServices(config: AppConfig, log: Logger, ds: DataSource): Services {
  const redis = config.redisUrl ? connectRedis(config.redisUrl, log) : undefined;
  const pgCounters = new PostgresCounterStore(ds);
  const counters: CounterStore = redis ? new FailoverCounterStore(new RedisCounterStore(redis), pgCounters) : pgCounters;
  return {
    config,
    log,
    ds,
    redis,
    plans: new PlanDirectory(ds),
    limiter: new RateLimiter(counters),
    apiKeys: new ApiKeyService(ds, config.apiKeyPepper),
    close: async () => {
      redis?.disconnect();
    },
  };
}
