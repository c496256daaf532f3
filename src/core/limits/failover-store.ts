import { rateCounterFailoversTotal } from '../ops/metrics';
import { changedMode, CounterMode, CounterModes, markerOf } from './counter-mode';
import { CountersUnavailableError } from './errors';
import { PostgresCounterStore } from './postgres-store';
import type { CounterEntry } from './types';
import { RedisCounterStore, RedisHit, STALE } from './redis-store';
import { CounterStore, HitResult, RateWindow, windowStart } from './types';

export interface FailoverOptions {
  /** After a Redis failure, PostgreSQL alone counts for at least this long before Redis is tried again. */
  retryAfterMs?: number;
  /** At the first count, how long a Redis still connecting is waited for before PostgreSQL takes over. */
  connectWaitMs?: number;
  onFailover?: (reason: string) => void;
  onRecovered?: () => void;
  /** Redis was empty, restarted or replaced (or behind PostgreSQL after a fallback): its counts were restored. */
  onRestored?: (mode: CounterMode) => void;
}

/** A mode change's outcome: the mode in force, and why PostgreSQL took over when it did. */
interface Change {
  mode: CounterMode;
  reason?: string;
}

/** Mode changes one count may follow before it gives up (only a Redis flapping between instances gets there). */
const MAX_ATTEMPTS = 5;

function entriesOf(key: string, windows: RateWindow[], r: HitResult, nowMs: number): CounterEntry[] {
  return windows.map((w, i) => {
    const start = windowStart(nowMs, w.seconds);
    return { key: `${key}:${w.name}`, windowStart: start, count: r.windows[i].count, expiresAt: start + w.seconds + 60 };
  });
}

/**
 * Redis first, PostgreSQL when Redis fails, and every instance in the same mode (see counter-mode.ts: one row in
 * PostgreSQL says which store admits, under which epoch). Never process memory, which would give every instance its
 * own limit. What keeps an hourly limit of N at N across any Redis event:
 * - a Redis hit counts only when the Redis still carries the marker of the current epoch, checked inside the
 *   counting script (an empty, restarted or replaced Redis has none), and on a connection whose server is the one
 *   the counts were restored into (its run id, checked again after every reconnect);
 * - an admitted Redis count is written through to PostgreSQL before the request is admitted, under the epoch it
 *   was counted in: a switch of mode waits for those in flight, and one that raced a switch is not admitted;
 * - a Redis without the marker, or another server, is restored from PostgreSQL (the larger count wins) before
 *   anything is counted on it; after a fallback, Redis is used again only once restored the same way.
 * A Redis command that timed out may still run later on the Redis (a frozen one): it only ever adds to Redis's
 * count, so such a request is counted twice at worst, never admitted twice.
 */
export class FailoverCounterStore implements CounterStore {
  private current: CounterMode | undefined;
  /** The run id of the server behind the connection, once checked against the mode (cleared on disconnect). */
  private verifiedRunId: string | undefined;
  private retryAt = 0;
  /** The one mode change this process runs at a time; counts wait for it, then count again. */
  private changing: Promise<CounterMode> | undefined;
  private readonly retryAfterMs: number;

  constructor(
    private readonly redis: RedisCounterStore,
    private readonly pg: PostgresCounterStore,
    private readonly modes: CounterModes,
    private readonly options: FailoverOptions = {},
  ) {
    this.retryAfterMs = options.retryAfterMs ?? 2000;
    redis.onDisconnect(() => (this.verifiedRunId = undefined));
  }

  get kind(): 'redis' | 'postgres' {
    return this.current?.mode === 'postgres' ? 'postgres' : 'redis';
  }

  /** True while PostgreSQL counts because Redis failed. */
  get onFallback(): boolean {
    return this.current?.mode === 'postgres';
  }

  async hit(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const mode = await this.mode();
      if (mode.mode === 'postgres') {
        this.maybeRecover();
        try {
          return await this.pg.hit(key, windows, nowMs, mode.epoch);
        } catch (err) {
          const now = changedMode(err);
          if (!now) throw err;
          this.follow(now);
          continue;
        }
      }
      const counted = await this.onRedis(mode, () => this.redis.hit(key, windows, nowMs, markerOf(mode)));
      if (!counted) continue;
      if (!counted.allowed) return counted;
      const now = await this.modes.recordAdmitted(entriesOf(key, windows, counted, nowMs), mode.epoch);
      if (!now) return counted;
      // A switch committed between the count and its write-through: counted again under the new mode.
      this.follow(now);
    }
    throw new CountersUnavailableError();
  }

  async peek(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    const mode = await this.mode();
    if (mode.mode === 'redis') {
      const seen = await this.onRedis(mode, () => this.redis.peek(key, windows, nowMs, markerOf(mode)));
      if (seen) return seen;
    } else {
      this.maybeRecover();
    }
    return this.pg.peek(key, windows, nowMs);
  }

  /** The mode this instance follows; at the first count, Redis is attached (restored when needed) or PostgreSQL taken. */
  private async mode(): Promise<CounterMode> {
    if (this.current && !this.changing) return this.current;
    return this.change(async () => {
      if (this.current) return { mode: this.current };
      await this.redis.connection(this.options.connectWaitMs ?? 2000);
      return this.attach().catch(async (err: unknown) => this.fallBack(await this.modes.read(), err));
    });
  }

  /** One Redis call under `mode`; undefined when the mode changed instead (Redis failed, or lost its counts). */
  private async onRedis(mode: CounterMode, call: () => Promise<RedisHit>): Promise<HitResult | undefined> {
    let result: RedisHit;
    try {
      result = (await this.sameServer(mode)) ? await call() : STALE;
    } catch (err) {
      await this.change(() => this.fallBack(mode, err));
      return undefined;
    }
    if (result !== STALE) return result;
    await this.change(() => this.attach().catch((err: unknown) => this.fallBack(mode, err)));
    return undefined;
  }

  /** Whether the connection's server is the one the mode's counts were restored into (asked once per connection). */
  private async sameServer(mode: CounterMode): Promise<boolean> {
    if (this.verifiedRunId === undefined) this.verifiedRunId = await this.redis.serverRunId();
    return this.verifiedRunId === mode.redisRunId;
  }

  /** Counts on Redis from now on, restored from PostgreSQL first unless it already holds the current counts. */
  private async attach(): Promise<Change> {
    const { mode, restored } = await this.modes.toRedis(this.redis);
    this.verifiedRunId = mode.redisRunId ?? undefined;
    if (restored) this.options.onRestored?.(mode);
    return { mode };
  }

  /** Redis failed under `from`: PostgreSQL counts (unless the mode moved on meanwhile). */
  private async fallBack(from: CounterMode, err: unknown): Promise<Change> {
    return { mode: await this.modes.toPostgres(from), reason: err instanceof Error ? err.message : String(err) };
  }

  /** Runs `run` unless a change is under way already (then waits for that one); its result becomes the mode. */
  private change(run: () => Promise<Change>): Promise<CounterMode> {
    this.changing ??= run()
      .then(({ mode, reason }) => {
        this.follow(mode, reason);
        return mode;
      })
      .finally(() => (this.changing = undefined));
    return this.changing;
  }

  /** Takes `next` as the mode (this instance's switch, or another one's it learnt of). */
  private follow(next: CounterMode, reason = 'another instance moved them'): void {
    const before = this.current;
    this.current = next;
    if (next.mode === 'postgres' && before?.mode !== 'postgres') {
      this.retryAt = Date.now() + this.retryAfterMs;
      rateCounterFailoversTotal.inc();
      this.options.onFailover?.(reason);
    } else if (next.mode === 'redis' && before?.mode === 'postgres') {
      this.options.onRecovered?.();
    }
  }

  /** While PostgreSQL counts: Redis is tried again (restored first) every `retryAfterMs`, once it is connected. */
  private maybeRecover(): void {
    if (this.changing || Date.now() < this.retryAt || !this.redis.connected) return;
    this.retryAt = Date.now() + this.retryAfterMs;
    void this.change(() => this.attach().catch(() => ({ mode: this.current! }))).catch(() => undefined);
  }
}
