import type Redis from 'ioredis';
import type { CounterEntry } from './types';
import { HitResult, RateWindow, windowStart } from './types';

// KEYS: the marker, then one counter key per window. ARGV: mode (1 = hit, 0 = peek), the marker this instance
// expects, then limit and ttl per window. A missing or different marker (an empty, restarted or replaced Redis, or
// one restored since under a newer epoch) answers {-1} and counts nothing. Otherwise refuses when any limited
// window is full, or increments every window. Runs atomically in Redis.
const HIT_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return {-1} end
local n = #KEYS - 1
local counts = {}
for i = 1, n do
  counts[i] = tonumber(redis.call('GET', KEYS[i + 1]) or '0')
end
local allowed = 1
for i = 1, n do
  local limit = tonumber(ARGV[2 * i + 1])
  if limit > 0 and counts[i] >= limit then allowed = 0 end
end
if allowed == 1 and ARGV[1] == '1' then
  for i = 1, n do
    counts[i] = redis.call('INCR', KEYS[i + 1])
    if counts[i] == 1 then redis.call('EXPIRE', KEYS[i + 1], tonumber(ARGV[2 * i + 2])) end
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

/** The Redis no longer holds the counts this instance expects (its marker is missing or another). */
export const STALE = 'stale' as const;
export type RedisHit = HitResult | typeof STALE;

type Scripted = Record<string, (...a: unknown[]) => Promise<number[]>>;

/**
 * The counters in Redis, each hit guarded by the marker (see counter-mode.ts): one Lua script checks the marker,
 * the limits and increments, so nothing is ever counted on a Redis whose counts were not restored first.
 */
export class RedisCounterStore {
  private readonly markerKey: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'ng:rl:',
  ) {
    this.markerKey = `${prefix}epoch`;
    redis.defineCommand('ngRateHit', { lua: HIT_SCRIPT });
    redis.defineCommand('ngRateRaise', { lua: RAISE_SCRIPT });
  }

  /** Whether a command can be sent now (connected and past its ready check). */
  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  /** Resolves once connected, or after `ms` (a Redis still connecting at start is given that long). */
  async connection(ms: number): Promise<void> {
    if (this.connected) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.redis.on('ready', done);
    });
  }

  /** Calls `listener` whenever the connection drops: the next server may be another one behind the same address. */
  onDisconnect(listener: () => void): void {
    this.redis.on('close', listener);
  }

  /** The server's run id: a new one for every start of a redis-server, whatever its data. */
  async serverRunId(): Promise<string> {
    const info = await this.redis.info('server');
    const id = /^run_id:(\w+)/m.exec(info)?.[1];
    if (!id) throw new Error('INFO server names no run_id');
    return id;
  }

  marker(): Promise<string | null> {
    return this.redis.get(this.markerKey);
  }

  async setMarker(value: string): Promise<void> {
    await this.redis.set(this.markerKey, value);
  }

  /** Raises counters to at least the given counts (PostgreSQL's counts, at a restore), 500 per call. */
  async raiseTo(entries: CounterEntry[]): Promise<void> {
    const cmd = (this.redis as unknown as Scripted).ngRateRaise;
    const nowS = Math.floor(Date.now() / 1000);
    const live = entries.filter((e) => e.expiresAt > nowS);
    for (let i = 0; i < live.length; i += 500) {
      const batch = live.slice(i, i + 500);
      const keys = batch.map((e) => `${this.prefix}${e.key}:${e.windowStart}`);
      const args = batch.flatMap((e) => [e.count, e.expiresAt - nowS]);
      await cmd.call(this.redis, keys.length, ...keys, ...args);
    }
  }

  private async run(mode: 0 | 1, key: string, windows: RateWindow[], nowMs: number, marker: string): Promise<RedisHit> {
    const starts = windows.map((w) => windowStart(nowMs, w.seconds));
    const keys = [this.markerKey, ...windows.map((w, i) => `${this.prefix}${key}:${w.name}:${starts[i]}`)];
    const args: (string | number)[] = [mode, marker];
    windows.forEach((w) => args.push(w.limit, w.seconds + 60));
    const cmd = (this.redis as unknown as Scripted).ngRateHit;
    const reply = await cmd.call(this.redis, keys.length, ...keys, ...args);
    if (reply[0] === -1) return STALE;
    return {
      allowed: reply[0] === 1,
      windows: windows.map((w, i) => ({ name: w.name, limit: w.limit, count: Number(reply[i + 1]), resetAt: starts[i] + w.seconds })),
    };
  }

  hit(key: string, windows: RateWindow[], nowMs: number, marker: string): Promise<RedisHit> {
    return this.run(1, key, windows, nowMs, marker);
  }

  peek(key: string, windows: RateWindow[], nowMs: number, marker: string): Promise<RedisHit> {
    return this.run(0, key, windows, nowMs, marker);
  }
}
