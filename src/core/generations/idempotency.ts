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

/**
 * `Idempotency-Key` per account, kept 24 h: the same key and body replay the stored response without charging
 * again; a different body is refused (422); a key whose first request is still running is refused (409).
 */
export class IdempotencyStore {
  constructor(private readonly ds: DataSource) {}

  async run(
    userId: number,
    key: string,
    requestHash: string,
    work: () => Promise<StoredResponse>,
  ): Promise<StoredResponse & { replayed: boolean }> {
    await this.ds.query('DELETE FROM idempotency_records WHERE user_id = $1 AND key = $2 AND expires_at < now()', [userId, key]);
    const claimed = await this.ds.query<unknown[]>(
      `INSERT INTO idempotency_records (user_id, key, request_hash, state, expires_at)
       VALUES ($1, $2, $3, 'running', now() + make_interval(hours => ${KEEP_HOURS}))
       ON CONFLICT (user_id, key) DO NOTHING RETURNING key`,
      [userId, key, requestHash],
    );
    if (claimed.length === 0) return { ...(await this.existing(userId, key, requestHash)), replayed: true };
    let response: StoredResponse;
    try {
      response = await work();
    } catch (err) {
      // Nothing was stored for a refused request (402, 429, 4xx): the client may retry with the same key.
      await this.ds.query('DELETE FROM idempotency_records WHERE user_id = $1 AND key = $2', [userId, key]);
      throw err;
    }
    await this.ds.query(
      `UPDATE idempotency_records SET state = 'done', response_status = $3, response_body = $4 WHERE user_id = $1 AND key = $2`,
      [userId, key, response.status, JSON.stringify(response.body)],
    );
    return { ...response, replayed: false };
  }

  private async existing(userId: number, key: string, requestHash: string): Promise<StoredResponse> {
    const rows = await this.ds.query<{ request_hash: string; state: string; response_status: number; response_body: unknown }[]>(
      'SELECT request_hash, state, response_status, response_body FROM idempotency_records WHERE user_id = $1 AND key = $2',
      [userId, key],
    );
    const row = rows[0];
    if (!row) throw new IdempotencyConflictError('in_progress', 'A request with this Idempotency-Key is still being processed');
    if (row.request_hash !== requestHash) {
      throw new IdempotencyConflictError('body_mismatch', 'This Idempotency-Key was already used with a different request body');
    }
    if (row.state !== 'done') {
      throw new IdempotencyConflictError('in_progress', 'A request with this Idempotency-Key is still being processed');
    }
    return { status: row.response_status, body: row.response_body };
  }

  async purgeExpired(): Promise<void> {
    await this.ds.query('DELETE FROM idempotency_records WHERE expires_at < now()');
  }
}
