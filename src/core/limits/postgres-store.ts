import { DataSource } from 'typeorm';
import { CounterStore, HitResult, isOver, RateWindow, windowStart } from './types';

class RefusedError extends Error {}

/** One counter window as both stores can hold it. `windowStart` and `expiresAt` in Unix seconds. */
export interface CounterEntry {
  key: string;
  windowStart: number;
  count: number;
  expiresAt: number;
}

/** Counters in the `rate_counters` table; used without Redis, or when Redis fails. */
export class PostgresCounterStore implements CounterStore {
  readonly kind = 'postgres' as const;

  constructor(private readonly ds: DataSource) {}

  async hit(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    const starts = windows.map((w) => windowStart(nowMs, w.seconds));
    try {
      const counts = await this.ds.transaction(async (em) => {
        const out: number[] = [];
        for (const [i, w] of windows.entries()) {
          // The guarded upsert increments only below the limit; its row lock serialises parallel requests.
          const rows = await em.query<{ count: number }[]>(
            `INSERT INTO rate_counters (key, window_start, count, expires_at)
             VALUES ($1, $2, 1, to_timestamp($3))
             ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + 1
               WHERE $4 = 0 OR rate_counters.count < $4
             RETURNING count`,
            [`${key}:${w.name}`, starts[i], starts[i] + w.seconds + 60, w.limit],
          );
          if (rows.length === 0) throw new RefusedError();
          out.push(rows[0].count);
        }
        return out;
      });
      return {
        allowed: true,
        windows: windows.map((w, i) => ({ name: w.name, limit: w.limit, count: counts[i], resetAt: starts[i] + w.seconds })),
      };
    } catch (err) {
      if (!(err instanceof RefusedError)) throw err;
      const state = await this.peek(key, windows, nowMs);
      return { ...state, allowed: false };
    }
  }

  async peek(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    const starts = windows.map((w) => windowStart(nowMs, w.seconds));
    const rows = await this.ds.query<{ key: string; count: number }[]>(
      `SELECT key, count FROM rate_counters WHERE (key, window_start) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))`,
      [windows.map((w) => `${key}:${w.name}`), starts],
    );
    const byKey = new Map(rows.map((r) => [r.key, r.count]));
    const states = windows.map((w, i) => ({
      name: w.name,
      limit: w.limit,
      count: byKey.get(`${key}:${w.name}`) ?? 0,
      resetAt: starts[i] + w.seconds,
    }));
    return { allowed: !states.some((s) => isOver(s.count, s.limit)), windows: states };
  }

  /** Raises counters to at least the given counts (never lowers one): the copy of Redis's counts. */
  async raiseTo(entries: CounterEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.ds.query(
      `INSERT INTO rate_counters (key, window_start, count, expires_at)
       SELECT k, s, c, to_timestamp(e) FROM unnest($1::text[], $2::bigint[], $3::int[], $4::bigint[]) AS t(k, s, c, e)
       ON CONFLICT (key, window_start) DO UPDATE SET count = GREATEST(rate_counters.count, EXCLUDED.count)`,
      [entries.map((e) => e.key), entries.map((e) => e.windowStart), entries.map((e) => e.count), entries.map((e) => e.expiresAt)],
    );
  }

  /** Every window still running (to raise Redis's counts after an outage). */
  async liveWindows(): Promise<CounterEntry[]> {
    const rows = await this.ds.query<{ key: string; window_start: string; count: number; expires_at: string }[]>(
      `SELECT key, window_start, count, extract(epoch FROM expires_at)::bigint AS expires_at FROM rate_counters WHERE expires_at > now()`,
    );
    return rows.map((r) => ({ key: r.key, windowStart: Number(r.window_start), count: r.count, expiresAt: Number(r.expires_at) }));
  }

  /** Deletes expired windows (run by a periodic job). */
  async purgeExpired(): Promise<number> {
    // TypeORM answers DELETE with [rows, affected].
    const [, affected] = await this.ds.query<[unknown[], number]>(`DELETE FROM rate_counters WHERE expires_at < now()`);
    return affected;
  }
}
