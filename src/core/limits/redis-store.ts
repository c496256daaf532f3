import type Redis from 'ioredis';
import { CounterStore, HitResult, RateWindow, windowStart } from './types';

// KEYS: one counter key per window. ARGV: mode (1 = hit, 0 = peek), then limit and ttl per window.
// Refuses when any limited window is full; otherwise increments every window. Runs atomically in Redis.
const HIT_SCRIPT = `
local n = #KEYS
local counts = {}
for i = 1, n do
  counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
end
local allowed = 1
for i = 1, n do
  local limit = tonumber(ARGV[2 * i])
  if limit > 0 and counts[i] >= limit then allowed = 0 end
end
if allowed == 1 and ARGV[1] == '1' then
  for i = 1, n do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('EXPIRE', KEYS[i], tonumber(ARGV[2 * i + 1])) end
  end
end
table.insert(counts, 1, allowed)
return counts
`;

export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'ng:rl:',
  ) {
    redis.defineCommand('ngRateHit', { lua: HIT_SCRIPT });
  }

  private async run(mode: 0 | 1, key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    const starts = windows.map((w) => windowStart(nowMs, w.seconds));
    const keys = windows.map((w, i) => `${this.prefix}${key}:${w.name}:${starts[i]}`);
    const args: (string | number)[] = [mode];
    windows.forEach((w) => args.push(w.limit, w.seconds + 60));
    const cmd = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<number[]>>).ngRateHit;
    const reply = await cmd.call(this.redis, keys.length, ...keys, ...args);
    return {
      allowed: reply[0] === 1,
      windows: windows.map((w, i) => ({ name: w.name, limit: w.limit, count: Number(reply[i + 1]), resetAt: starts[i] + w.seconds })),
    };
  }

  hit(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    return this.run(1, key, windows, nowMs);
  }

  peek(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    return this.run(0, key, windows, nowMs);
  }
}
