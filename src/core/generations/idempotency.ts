import crypto from 'node:crypto';
import { DataSource } from 'typeorm';
import { IdempotencyConflictError } from './errors';

export interface StoredResponse {
  status: number;
  body: unknown;
}

const KEEP_HOURS = 24;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** A stable fingerprint of a request: the route plus its body with object keys sorted. */
export function fingerprint(route: string, body: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return crypto
    .createHash('sha256')
    .update(route)
    .update('\n')
    .update(JSON.stringify(canonical(body)) ?? '')
    .digest('hex');
}

export interface IdempotencyOptions {
  /** The instance that runs attempts (its records are released when it restarts). */
  instanceId?: string;
  /**
   * The longest a first attempt runs (its deadline): "still processing" (409) lasts no longer, and a retry after it
   * takes the key over.
   */
  attemptMs?: number;
  /** How often a release or outcome the database could not take is tried again. */
  retryEveryMs?: number;
}

type Pending = { run: () => Promise<unknown>; until: number };

/**
 * The running attempt of a request under an Idempotency-Key, as the core sees it: the generations it opens are
 * tied to it (before any vendor call), so a retry after a failed attempt answers with them rather than running
 * (and charging) again while one of them may still complete.
 */
export interface IdempotentAttempt {
  link(generationIds: readonly number[]): Promise<void>;
}

/** Renders the answer of an earlier attempt from the generations it opened (one of them not failed). */
export type ReplayGenerations = (generationIds: number[]) => Promise<StoredResponse>;

/**
 * `Idempotency-Key` per account, kept 24 h: the same key and body replay the stored response without charging
 * again; a different body is refused (422); a key whose first request is still running is refused (409), but
 * only until that attempt's deadline.
 *
 * An attempt that fails releases its key so the client may retry at once. When the database is the thing that
 * failed, the release (or the stored outcome) is kept in memory and tried again until it lands, so the retry runs
 * once the database is back; a process killed mid-attempt has its keys released when it starts again.
 *
 * An attempt that failed after it opened generations (an outage between the vendor's answer and the answer to the
 * client: the first attempt may be billed when the database returns) keeps them on its key: a retry answers with
 * those generations while one of them is pending or completed (`replay`), and runs anew only once all failed. So an
 * outage never charges a request twice.
 */
export class IdempotencyStore {
  private readonly instanceId: string;
  private readonly attemptMs: number;
  private readonly pending = new Map<string, Pending>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly ds: DataSource,
    options: IdempotencyOptions = {},
  ) {
    this.instanceId = options.instanceId ?? 'local';
    this.attemptMs = options.attemptMs ?? 120_000;
    this.timer = setInterval(() => void this.retryPending(), options.retryEveryMs ?? 500);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async run(
    userId: number,
    key: string,
    requestHash: string,
    work: (attempt: IdempotentAttempt) => Promise<StoredResponse>,
    replay?: ReplayGenerations,
  ): Promise<StoredResponse & { replayed: boolean }> {
    await this.settlePending(userId, key);
    const attempt = crypto.randomUUID();
    // A new claim, or the takeover of an expired record, of an attempt past its deadline, or of a failed attempt
    // whose generations all failed (none can still be billed).
    const claimed = await this.ds.query<unknown[]>(
      `INSERT INTO idempotency_records (user_id, key, request_hash, state, instance_id, attempt_id, running_until, expires_at)
       VALUES ($1, $2, $3, 'running', $4, $6, now() + make_interval(secs => $5), now() + make_interval(hours => ${KEEP_HOURS}))
       ON CONFLICT (user_id, key) DO UPDATE SET
         request_hash = EXCLUDED.request_hash, state = 'running', instance_id = EXCLUDED.instance_id, attempt_id = EXCLUDED.attempt_id,
         running_until = EXCLUDED.running_until, response_status = NULL, response_body = NULL, generation_ids = NULL,
         created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE idempotency_records.expires_at < now()
          OR ((idempotency_records.state = 'failed'
               OR (idempotency_records.state = 'running' AND idempotency_records.running_until < now()))
              AND NOT EXISTS (SELECT 1 FROM generations g
                               WHERE g.id = ANY(idempotency_records.generation_ids) AND g.status <> 'failed'))
       RETURNING key`,
      [userId, key, requestHash, this.instanceId, this.attemptMs / 1000, attempt],
    );
    if (claimed.length === 0) return { ...(await this.existing(userId, key, requestHash, replay)), replayed: true };
    let linked = false;
    const link: IdempotentAttempt = {
      link: async (generationIds) => {
        await this.ds.query(
          `UPDATE idempotency_records SET generation_ids = COALESCE(generation_ids, '{}') || $4::int[]
            WHERE user_id = $1 AND key = $2 AND attempt_id = $3`,
          [userId, key, attempt, [...generationIds]],
        );
        linked = true;
      },
    };
    let response: StoredResponse;
    try {
      response = await work(link);
    } catch (err) {
      // Nothing was stored for a refused or failed request (402, 429, 4xx, an outage): the client may retry. An
      // attempt that opened generations keeps them on the key (state failed) until every one of them failed.
      await this.persist(userId, key, () =>
        linked
          ? this.ds.query(
              `UPDATE idempotency_records SET state = 'failed', running_until = NULL
                WHERE user_id = $1 AND key = $2 AND state = 'running' AND attempt_id = $3`,
              [userId, key, attempt],
            )
          : this.ds.query(`DELETE FROM idempotency_records WHERE user_id = $1 AND key = $2 AND state = 'running' AND attempt_id = $3`, [
              userId,
              key,
              attempt,
            ]),
      );
      throw err;
    }
    // The outcome is the client's even when the database cannot record it right now: it is kept and stored later.
    await this.persist(userId, key, () =>
      this.ds.query(
        `UPDATE idempotency_records SET state = 'done', response_status = $4, response_body = $5, running_until = NULL
         WHERE user_id = $1 AND key = $2 AND state = 'running' AND attempt_id = $3`,
        [userId, key, attempt, response.status, JSON.stringify(response.body)],
      ),
    );
    return { ...response, replayed: false };
  }

  /**
   * At start: the attempts a previous process of this instance left running died with it. One that had opened
   * generations keeps them (state failed): its retry answers with them until all failed.
   */
  async releaseInstance(instanceId = this.instanceId): Promise<number> {
    const rows = await this.ds.query<{ n: number }[]>(
      `WITH kept AS (
         UPDATE idempotency_records SET state = 'failed', running_until = NULL
          WHERE state = 'running' AND instance_id = $1 AND generation_ids IS NOT NULL RETURNING 1
       ), dropped AS (
         DELETE FROM idempotency_records WHERE state = 'running' AND instance_id = $1 AND generation_ids IS NULL RETURNING 1
       )
       SELECT ((SELECT count(*) FROM kept) + (SELECT count(*) FROM dropped))::int AS n`,
      [instanceId],
    );
    return rows[0]?.n ?? 0;
  }

  /** Runs a record update now, or keeps it for retry (until the attempt's deadline) when the database fails. */
  private async persist(userId: number, key: string, update: () => Promise<unknown>): Promise<void> {
    try {
      await update();
    } catch {
      this.pending.set(`${userId}\n${key}`, { run: update, until: Date.now() + this.attemptMs });
    }
  }

  private async settlePending(userId: number, key: string): Promise<void> {
    const id = `${userId}\n${key}`;
    const p = this.pending.get(id);
    if (!p) return;
    await p.run();
    this.pending.delete(id);
  }

  private async retryPending(): Promise<void> {
    for (const [id, p] of this.pending) {
      if (Date.now() > p.until) {
        this.pending.delete(id);
        continue;
      }
      try {
        await p.run();
        if (this.pending.get(id) === p) this.pending.delete(id);
      } catch {
        return; // the database is still away: try again on the next tick
      }
    }
  }

  private async existing(userId: number, key: string, requestHash: string, replay?: ReplayGenerations): Promise<StoredResponse> {
    const rows = await this.ds.query<
      {
        request_hash: string;
        state: string;
        response_status: number;
        response_body: unknown;
        generation_ids: number[] | null;
        overdue: boolean;
      }[]
    >(
      `SELECT request_hash, state, response_status, response_body, generation_ids, running_until < now() AS overdue
         FROM idempotency_records WHERE user_id = $1 AND key = $2`,
      [userId, key],
    );
    const row = rows[0];
    if (!row) throw new IdempotencyConflictError('in_progress', 'A request with this Idempotency-Key is still being processed');
    if (row.request_hash !== requestHash) {
      throw new IdempotencyConflictError('body_mismatch', 'This Idempotency-Key was already used with a different request body');
    }
    // A failed (or overdue) attempt with a generation still pending or completed: that generation is the answer.
    const over = row.state === 'failed' || (row.state === 'running' && row.overdue);
    if (over && replay && row.generation_ids?.length) return replay(row.generation_ids);
    if (row.state !== 'done') {
      throw new IdempotencyConflictError('in_progress', 'A request with this Idempotency-Key is still being processed');
    }
    return { status: row.response_status, body: row.response_body };
  }

  async purgeExpired(): Promise<void> {
    await this.ds.query('DELETE FROM idempotency_records WHERE expires_at < now()');
  }
}
