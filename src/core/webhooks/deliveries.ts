import { DataSource } from 'typeorm';
import type { SendResult } from './sender';

/** A delivery claimed for one attempt, with what is needed to send it. */
export interface ClaimedDelivery {
  id: number;
  endpointId: number;
  userId: number;
  url: string;
  secret: string;
  messageId: string;
  event: string;
  payload: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
  createdAt: Date;
}

export interface AttemptView {
  id: number;
  webhook_id: string;
  event: string;
  attempt: number;
  success: boolean;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  response_body: string | null;
  attempted_at: string;
}

/** Inserts one delivery per endpoint of the account subscribed to `event` (all its endpoints with `onlyEndpoint`). */
export async function insertDeliveries(
  ds: DataSource,
  target: { userId: number; event: string; onlyEndpoint?: number },
  messageId: string,
  payload: string,
): Promise<number[]> {
  const rows = await ds.query<{ id: number }[]>(
    `INSERT INTO webhook_deliveries (endpoint_id, message_id, event, payload)
     SELECT id, $3, $2, $4 FROM webhook_endpoints
      WHERE user_id = $1 AND status <> 'disabled' AND (CASE WHEN $5::int IS NULL THEN $2 = ANY(events) ELSE id = $5::int END)
     RETURNING id`,
    [target.userId, target.event, messageId, payload, target.onlyEndpoint ?? null],
  );
  return rows.map((r) => r.id);
}

/**
 * Claims the next attempt of a pending, due delivery whose endpoint still exists: one statement, so of two
 * instances (or a duplicated job) only one sends it. The lease covers the attempt; if the process dies
 * meanwhile, the sweep re-triggers the delivery once the lease has run out.
 */
export async function claimDelivery(ds: DataSource, id: number, leaseMs: number): Promise<ClaimedDelivery | null> {
  const rows = await ds.query<
    {
      id: number;
      endpoint_id: number;
      user_id: number;
      url: string;
      secret: string;
      message_id: string;
      event: string;
      payload: string;
      attempts: number;
      created_at: Date;
    }[]
  >(
    `UPDATE webhook_deliveries d
        SET attempts = d.attempts + 1, lease_until = now() + make_interval(secs => $2::double precision / 1000)
       FROM webhook_endpoints e
      WHERE d.id = $1 AND e.id = d.endpoint_id AND d.state = 'pending' AND e.status <> 'disabled'
        AND d.next_attempt_at <= now() + interval '1 second'
        AND (d.lease_until IS NULL OR d.lease_until < now())
      RETURNING d.id, d.endpoint_id, e.user_id, e.url, e.secret, d.message_id, d.event, d.payload, d.attempts, d.created_at`,
    [id, leaseMs],
  );
  // UPDATE ... RETURNING through TypeORM answers [rows, count].
  const list = (Array.isArray(rows[0]) ? rows[0] : rows) as typeof rows;
  const r = list[0];
  if (!r) return null;
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    userId: r.user_id,
    url: r.url,
    secret: r.secret,
    messageId: r.message_id,
    event: r.event,
    payload: r.payload,
    attempt: r.attempts,
    createdAt: new Date(r.created_at),
  };
}

/** `gone`: the receiver answered 410 Gone; the endpoint is disabled at once and nothing more is sent to it. */
export type AttemptOutcome = { kind: 'succeeded' } | { kind: 'retry'; delayMs: number } | { kind: 'gave_up' } | { kind: 'gone' };

/**
 * Records the attempt and moves the delivery on, in one statement: succeeded (the endpoint is active again),
 * scheduled again after `delayMs`, or failed for good. Returns whether the endpoint just turned failing.
 */
export async function recordAttempt(
  ds: DataSource,
  d: ClaimedDelivery,
  result: SendResult,
  outcome: AttemptOutcome,
): Promise<{ endpointTurnedFailing: boolean; endpointDisabled: boolean }> {
  const state = outcome.kind === 'succeeded' ? 'succeeded' : outcome.kind === 'retry' ? 'pending' : 'failed';
  if (outcome.kind === 'gone') return recordGone(ds, d, result);
  const delayMs = outcome.kind === 'retry' ? outcome.delayMs : 0;
  const rows = await ds.query<{ turned_failing: boolean | null }[]>(
    `WITH a AS (
       INSERT INTO webhook_attempts (delivery_id, endpoint_id, attempt, succeeded, status_code, error, response_body, latency_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ),
     d AS (
       UPDATE webhook_deliveries SET state = $9, lease_until = NULL,
              next_attempt_at = now() + make_interval(secs => $10::double precision / 1000),
              finished_at = CASE WHEN $9 = 'pending' THEN NULL ELSE now() END
        WHERE id = $1
     ),
     e AS (
       UPDATE webhook_endpoints
          SET status = CASE WHEN $9 = 'succeeded' THEN 'active' ELSE 'failing' END,
              failing_since = CASE WHEN $9 = 'succeeded' THEN NULL ELSE now() END
        WHERE id = $2 AND (($9 = 'succeeded' AND status = 'failing') OR ($9 = 'failed' AND status = 'active'))
        RETURNING status
     )
     SELECT bool_or(status = 'failing') AS turned_failing FROM e`,
    [d.id, d.endpointId, d.attempt, result.ok, result.statusCode, result.error, result.responseBody, result.latencyMs, state, delayMs],
  );
  return { endpointTurnedFailing: rows[0]?.turned_failing === true, endpointDisabled: false };
}

/** 410 Gone: this delivery and every other pending one of the endpoint fail now; the endpoint is `disabled`. */
async function recordGone(
  ds: DataSource,
  d: ClaimedDelivery,
  result: SendResult,
): Promise<{ endpointTurnedFailing: boolean; endpointDisabled: boolean }> {
  const rows = await ds.query<{ disabled: number }[]>(
    `WITH a AS (
       INSERT INTO webhook_attempts (delivery_id, endpoint_id, attempt, succeeded, status_code, error, response_body, latency_ms)
       VALUES ($1, $2, $3, false, $4, $5, $6, $7)
     ),
     d AS (
       UPDATE webhook_deliveries SET state = 'failed', lease_until = NULL, finished_at = now()
        WHERE endpoint_id = $2 AND (id = $1 OR state = 'pending')
     ),
     e AS (
       UPDATE webhook_endpoints SET status = 'disabled', failing_since = COALESCE(failing_since, now())
        WHERE id = $2 AND status <> 'disabled' RETURNING id
     )
     SELECT count(*)::int AS disabled FROM e`,
    [d.id, d.endpointId, d.attempt, result.statusCode, 'HTTP 410 Gone: endpoint disabled', result.responseBody, result.latencyMs],
  );
  return { endpointTurnedFailing: false, endpointDisabled: (rows[0]?.disabled ?? 0) > 0 };
}

/** Pending deliveries that are overdue and not in flight: their trigger job was lost (crash, queue down). */
export async function overdueDeliveries(ds: DataSource, graceMs: number, limit: number): Promise<number[]> {
  const rows = await ds.query<{ id: number }[]>(
    `SELECT id FROM webhook_deliveries
      WHERE state = 'pending' AND next_attempt_at < now() - make_interval(secs => $1::double precision / 1000)
        AND (lease_until IS NULL OR lease_until < now())
        AND endpoint_id NOT IN (SELECT id FROM webhook_endpoints WHERE status = 'disabled')
      ORDER BY next_attempt_at LIMIT $2`,
    [graceMs, limit],
  );
  return rows.map((r) => r.id);
}

/** Deletes finished deliveries older than `days` (their attempts go with them), in batches. */
export async function purgeFinishedDeliveries(ds: DataSource, days: number): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await ds.query<{ id: number }[]>(
      `SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND finished_at < now() - make_interval(days => $1) LIMIT 1000`,
      [days],
    );
    if (rows.length === 0) return total;
    await ds.query('DELETE FROM webhook_deliveries WHERE id = ANY($1::int[])', [rows.map((r) => r.id)]);
    total += rows.length;
  }
}

export async function recentAttempts(ds: DataSource, endpointId: number, limit: number): Promise<AttemptView[]> {
  const rows = await ds.query<
    {
      id: number;
      message_id: string;
      event: string;
      attempt: number;
      succeeded: boolean;
      status_code: number | null;
      error: string | null;
      latency_ms: number;
      response_body: string | null;
      attempted_at: Date;
    }[]
  >(
    `SELECT a.id, d.message_id, d.event, a.attempt, a.succeeded, a.status_code, a.error, a.latency_ms, a.response_body, a.attempted_at
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
      WHERE a.endpoint_id = $1 ORDER BY a.id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    webhook_id: r.message_id,
    event: r.event,
    attempt: r.attempt,
    success: r.succeeded,
    status_code: r.status_code,
    error: r.error,
    latency_ms: r.latency_ms,
    response_body: r.response_body,
    attempted_at: new Date(r.attempted_at).toISOString(),
  }));
}
