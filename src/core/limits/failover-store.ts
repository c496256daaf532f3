import { rateCounterFailoversTotal } from '../ops/metrics';
import { CounterEntry, PostgresCounterStore } from './postgres-store';
import { RedisCounterStore } from './redis-store';
import { CounterStore, HitResult, RateWindow, windowStart } from './types';

export interface FailoverOptions {
  /** After a Redis failure, PostgreSQL alone counts for at least this long before Redis is tried again. */
  retryAfterMs?: number;
  /** How often the counts admitted on Redis are copied into PostgreSQL. */
  mirrorEveryMs?: number;
  onFailover?: (err: Error) => void;
  onRecovered?: () => void;
}

/**
 * Redis first; when a Redis call fails or times out, PostgreSQL counts instead (never process memory, which
 * would give every instance its own limit). The two stores stay consistent by one rule, "the larger count wins":
 * - while Redis counts, every admitted count is copied into PostgreSQL (batched every `mirrorEveryMs`, keeping
 *   the larger value), so a failover continues from where Redis stood, not from zero;
 * - before Redis is used again, every live PostgreSQL window is raised into Redis (again keeping the larger
 *   value), so the requests admitted during the outage still count.
 * What may slip through: the requests admitted in the last `mirrorEveryMs` before Redis failed.
 */
export class FailoverCounterStore implements CounterStore {
  private degraded = false;
  private retryAt = 0;
  private recovering: Promise<void> | undefined;
  private readonly unsynced = new Map<string, CounterEntry>();
  private readonly timer: NodeJS.Timeout;
  private readonly retryAfterMs: number;

  constructor(
    private readonly primary: RedisCounterStore,
    private readonly fallback: PostgresCounterStore,
    private readonly options: FailoverOptions = {},
  ) {
    this.retryAfterMs = options.retryAfterMs ?? 2000;
    this.timer = setInterval(() => void this.flushMirror(), options.mirrorEveryMs ?? 200);
    this.timer.unref();
  }

  get kind(): 'redis' | 'postgres' {
    return this.degraded ? 'postgres' : 'redis';
  }

  /** True while PostgreSQL counts because Redis failed. */
  get onFallback(): boolean {
    return this.degraded;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async hit(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    if (this.degraded) {
      this.maybeRecover();
      return this.fallback.hit(key, windows, nowMs);
    }
    try {
      const r = await this.primary.hit(key, windows, nowMs);
      if (r.allowed) this.remember(key, windows, r, nowMs);
      return r;
    } catch (err) {
      this.fail(err as Error);
      return this.fallback.hit(key, windows, nowMs);
    }
  }

  async peek(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    if (this.degraded) {
      this.maybeRecover();
      return this.fallback.peek(key, windows, nowMs);
    }
    try {
      return await this.primary.peek(key, windows, nowMs);
    } catch (err) {
      this.fail(err as Error);
      return this.fallback.peek(key, windows, nowMs);
    }
  }

  /** Copies what was not mirrored yet into PostgreSQL (also called before a failover takes over). */
  async flushMirror(): Promise<void> {
    if (this.unsynced.size === 0) return;
    const batch = [...this.unsynced.values()];
    this.unsynced.clear();
    try {
      await this.fallback.raiseTo(batch);
    } catch {
      for (const e of batch) this.merge(e);
    }
  }

  private remember(key: string, windows: RateWindow[], r: HitResult, nowMs: number): void {
    windows.forEach((w, i) => {
      const start = windowStart(nowMs, w.seconds);
      this.merge({ key: `${key}:${w.name}`, windowStart: start, count: r.windows[i].count, expiresAt: start + w.seconds + 60 });
    });
  }

  private merge(e: CounterEntry): void {
    const id = `${e.key}|${e.windowStart}`;
    const prev = this.unsynced.get(id);
    if (!prev || prev.count < e.count) this.unsynced.set(id, e);
  }

  private fail(err: Error): void {
    this.retryAt = Date.now() + this.retryAfterMs;
    if (this.degraded) return;
    this.degraded = true;
    rateCounterFailoversTotal.inc();
    this.options.onFailover?.(err);
    void this.flushMirror();
  }

  /** Back to Redis only once PostgreSQL's counts were raised into it; until then PostgreSQL keeps counting. */
  private maybeRecover(): void {
    if (this.recovering || Date.now() < this.retryAt) return;
    this.recovering = (async () => {
      await this.primary.raiseTo(await this.fallback.liveWindows());
      this.degraded = false;
      this.options.onRecovered?.();
    })()
      .catch(() => {
        this.retryAt = Date.now() + this.retryAfterMs;
      })
      .finally(() => (this.recovering = undefined));
  }
}
