import type Redis from 'ioredis';
import type { CounterEntry } from './postgres-store';
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

// KEYS: counter keys. ARGV: per key a count and a TTL in seconds. Raises each counter to at least its count.
const RAISE_SCRIPT = `
for i = 1, #KEYS do
  local want = tonumber(ARGV[2 * i - 1])
  local have = tonumber(redis.call('GET', KEYS[i]) or '0')
  if have < want then redis.call('SET', KEYS[i], want, 'EX', tonumber(ARGV[2 * i])) end
end
return #KEYS
`;

export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'ng:rl:',
  ) {
    redis.defineCommand('ngRateHit', { lua: HIT_SCRIPT });
    redis.defineCommand('ngRateRaise', { lua: RAISE_SCRIPT });
  }

  /** Raises counters to at least the given counts (PostgreSQL's counts after an outage), 500 per call. */
  async raiseTo(entries: CounterEntry[]): Promise<void> {
    const cmd = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<number>>).ngRateRaise;
    const nowS = Math.floor(Date.now() / 1000);
    const live = entries.filter((e) => e.expiresAt > nowS);
    for (let i = 0; i < live.length; i += 500) {
      const batch = live.slice(i, i + 500);
      const keys = batch.map((e) => `${this.prefix}${e.key}:${e.windowStart}`);
      const args = batch.flatMap((e) => [e.count, e.expiresAt - nowS]);
      await cmd.call(this.redis, keys.length, ...keys, ...args);
    }
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
