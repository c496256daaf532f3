import { DataSource, EntityManager } from 'typeorm';
import { isRefusedStatement } from '../../db/transaction';
import { GroupCommit } from '../billing/group-commit';
import { Queryable } from '../billing/queryable';
import type { CounterEntry } from './types';
import type { RedisCounterStore } from './redis-store';

/**
 * Which store admits requests now, under which epoch: the one row `rate_counter_state`. Every instance follows it.
 * - `redis`, epoch E: admissions are counted by Redis (whose marker must read `E:<run id>`) and each admitted
 *   count is written through to PostgreSQL under epoch E before the request is admitted;
 * - `postgres`, epoch E: admissions are counted by PostgreSQL alone.
 * Every admission holds the row shared (FOR KEY SHARE) while it commits and checks the epoch; every switch (to
 * PostgreSQL when Redis fails, to Redis after restoring its counts) holds it exclusively and bumps the epoch. So a
 * switch waits for the admissions in flight and sees all of them, and an admission that raced a switch is not
 * admitted (its instance follows the new mode and counts it again: at worst once too many, never once too few).
 */
export interface CounterMode {
  mode: 'redis' | 'postgres';
  epoch: string;
  /** The Redis server (its run id) the counts were restored into, for `redis`. */
  redisRunId: string | null;
}

/** What the Redis marker reads when its counts were restored under `mode`. */
export function markerOf(mode: CounterMode): string {
  return `${mode.epoch}:${mode.redisRunId ?? ''}`;
}

/** The mode changed under a PostgreSQL admission: nothing was counted; follow `mode` and count again. */
class CounterModeChanged extends Error {
  constructor(readonly mode: CounterMode) {
    super(`the rate counters are now on ${mode.mode} (epoch ${mode.epoch})`);
  }
}

/** The error a PostgreSQL admission throws when the mode is no longer the one it counted under. */
export function modeChanged(mode: CounterMode): Error {
  return new CounterModeChanged(mode);
}

/** The mode now in force, when `err` says the mode changed under an admission. */
export function changedMode(err: unknown): CounterMode | undefined {
  return err instanceof CounterModeChanged ? err.mode : undefined;
}

interface ModeRow {
  epoch: string;
  mode: string;
  redis_run_id: string | null;
}

const toMode = (r: ModeRow): CounterMode => ({
  mode: r.mode === 'redis' ? 'redis' : 'postgres',
  epoch: String(r.epoch),
  redisRunId: r.redis_run_id,
});

const SELECT_MODE = `SELECT epoch::text AS epoch, mode, redis_run_id FROM rate_counter_state WHERE id = 1`;

/** Locks the mode shared (an admission) and returns it. */
export async function lockModeShared(db: Queryable): Promise<CounterMode> {
  const rows = await db.query<ModeRow[]>(`${SELECT_MODE} FOR KEY SHARE`);
  return toMode(rows[0]);
}

interface Admitted {
  entries: CounterEntry[];
  epoch: string;
}

// Raises the counters to what Redis answered (the larger count wins), only under the epoch they were counted in.
// The shared lock is taken first (the insert reads its result), and a switch that committed meanwhile is seen:
// a locking read follows the row to its newest version.
const RECORD_ADMITTED = `
  WITH st AS (${SELECT_MODE} FOR KEY SHARE),
  ins AS (
    INSERT INTO rate_counters (key, window_start, count, expires_at)
    SELECT t.k, t.s, max(t.c), to_timestamp(max(t.e))
      FROM unnest($1::text[], $2::bigint[], $3::int[], $4::bigint[], $5::bigint[]) AS t(k, s, c, e, ep), st
     WHERE st.mode = 'redis' AND t.ep = st.epoch::bigint
     GROUP BY t.k, t.s
     ORDER BY t.k, t.s
    ON CONFLICT (key, window_start) DO UPDATE SET count = GREATEST(rate_counters.count, EXCLUDED.count)
  )
  SELECT epoch, mode, redis_run_id FROM st`;

export class CounterModes {
  private readonly admissions: GroupCommit<Admitted, CounterMode>;

  constructor(
    private readonly ds: DataSource,
    sql: Queryable,
  ) {
    const run = async (items: readonly Admitted[]): Promise<CounterMode> => {
      const rows = items.flatMap((it) => it.entries.map((e) => ({ ...e, epoch: it.epoch })));
      const out = await sql.query<ModeRow[]>(RECORD_ADMITTED, [
        rows.map((r) => r.key),
        rows.map((r) => r.windowStart),
        rows.map((r) => r.count),
        rows.map((r) => r.expiresAt),
        rows.map((r) => r.epoch),
      ]);
      return toMode(out[0]);
    };
    // Admissions that arrive together share one statement (and one WAL flush).
    this.admissions = new GroupCommit<Admitted, CounterMode>({
      runBatch: async (items) => {
        const mode = await run(items);
        return items.map(() => ({ ok: true, value: mode }));
      },
      runOne: (item) => run([item]),
      canRetryAlone: isRefusedStatement,
      maxBatch: 64,
      maxInFlight: 2,
    });
  }

  async read(): Promise<CounterMode> {
    const rows = await this.ds.query<ModeRow[]>(SELECT_MODE);
    return toMode(rows[0]);
  }

  /**
   * Writes an admission counted by Redis under `epoch` through to PostgreSQL (synchronous commit). Null when it
   * is admitted; otherwise the mode now in force (the epoch changed since the count: not admitted).
   */
  async recordAdmitted(entries: CounterEntry[], epoch: string): Promise<CounterMode | null> {
    const mode = await this.admissions.submit({ entries, epoch });
    return mode.mode === 'redis' && mode.epoch === epoch ? null : mode;
  }

  /** Redis failed under `from`: PostgreSQL counts from now on, unless the mode moved on already. Returns the mode in force. */
  toPostgres(from: CounterMode): Promise<CounterMode> {
    return this.exclusively(async (em, current) => {
      if (current.mode !== 'redis' || current.epoch !== from.epoch) return current;
      return this.set(em, { mode: 'postgres', epoch: next(current.epoch), redisRunId: current.redisRunId });
    });
  }

  /**
   * Counts on `redis` from now on. When it is the server restored under the current Redis epoch (marker and run id
   * agree), it is adopted as it is. Otherwise (empty, restarted, replaced, or behind PostgreSQL after a fallback)
   * every live PostgreSQL window is raised into it first (the larger count wins), then its marker and the new
   * epoch are set. Admissions wait meanwhile, on every instance.
   */
  toRedis(redis: RedisCounterStore): Promise<{ mode: CounterMode; restored: boolean }> {
    return this.exclusively(async (em, current) => {
      const runId = await redis.serverRunId();
      if (current.mode === 'redis' && current.redisRunId === runId && (await redis.marker()) === markerOf(current)) {
        return { mode: current, restored: false };
      }
      const rows = await em.query<{ key: string; window_start: string; count: number; expires_at: string }[]>(
        `SELECT key, window_start, count, extract(epoch FROM expires_at)::bigint AS expires_at FROM rate_counters WHERE expires_at > now()`,
      );
      await redis.raiseTo(
        rows.map((r) => ({ key: r.key, windowStart: Number(r.window_start), count: r.count, expiresAt: Number(r.expires_at) })),
      );
      const restored: CounterMode = { mode: 'redis', epoch: next(current.epoch), redisRunId: runId };
      await redis.setMarker(markerOf(restored));
      return { mode: await this.set(em, restored), restored: true };
    });
  }

  /** Runs `change` with the mode locked exclusively: admissions in flight have committed, new ones wait. */
  private exclusively<T>(change: (em: EntityManager, current: CounterMode) => Promise<T>): Promise<T> {
    return this.ds.transaction(async (em) => {
      const rows = await em.query<ModeRow[]>(`${SELECT_MODE} FOR UPDATE`);
      return change(em, toMode(rows[0]));
    });
  }

  private async set(em: EntityManager, mode: CounterMode): Promise<CounterMode> {
    await em.query(`UPDATE rate_counter_state SET mode = $1, epoch = $2::bigint, redis_run_id = $3, changed_at = now() WHERE id = 1`, [
      mode.mode,
      mode.epoch,
      mode.redisRunId,
    ]);
    return mode;
  }
}

const next = (epoch: string) => String(BigInt(epoch) + 1n);
