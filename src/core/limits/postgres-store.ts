import { DataSource } from 'typeorm';
import { lockModeShared, modeChanged } from './counter-mode';
import { CounterStore, HitResult, isOver, RateWindow, windowStart } from './types';

class RefusedError extends Error {}

/**
 * Counters in the `rate_counters` table: they count without Redis, or while Redis is down; with Redis they also
 * hold every count Redis admitted (written through, see counter-mode.ts), so Redis can be restored from them.
 */
export class PostgresCounterStore implements CounterStore {
  readonly kind = 'postgres' as const;

  constructor(private readonly ds: DataSource) {}

  /**
   * Counts one request in every window, or none when one is full. With `epoch` (Redis is configured, and the
   * counters are on PostgreSQL under that epoch), the mode is locked shared first and checked.
   * @throws CounterModeChanged when the mode is no longer `postgres` under `epoch` (nothing counted)
   */
  async hit(key: string, windows: RateWindow[], nowMs: number, epoch?: string): Promise<HitResult> {
    const starts = windows.map((w) => windowStart(nowMs, w.seconds));
    try {
      const counts = await this.ds.transaction(async (em) => {
        if (epoch !== undefined) {
          const mode = await lockModeShared(em);
          if (mode.mode !== 'postgres' || mode.epoch !== epoch) throw modeChanged(mode);
        }
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

  /** Deletes expired windows (run by a periodic job). */
  async purgeExpired(): Promise<number> {
    // TypeORM answers DELETE with [rows, affected].
    const [, affected] = await this.ds.query<[unknown[], number]>(`DELETE FROM rate_counters WHERE expires_at < now()`);
    return affected;
  }
}
