import { InvalidTokenError } from '../../accounts/errors';
import { KeyBudgetExceededError } from '../../accounts/key-limits';
import { InsufficientTokensError } from '../../billing/errors';
import { reserveCtes, settleCtes } from '../../billing/ledger';
import { Queryable } from '../../billing/queryable';
import { ProviderErrorKind } from '../../providers/types';
import { StoredResult } from '../media/results';

// Each transition below is ONE SQL statement: the generation row and the token ledger change together, and the
// `status = 'pending'` guard makes completion and failure single-shot (a retry, a second worker or the deadline
// sweeper that comes second changes nothing).

/** The reservation of generation N is `gen:N` (as an SQL expression over the id). */
export const REF_OF = (idExpr: string) => `('gen:' || ${idExpr})`;

export interface NewGeneration {
  userId: number;
  modelSlug: string;
  category: string;
  source: string;
  prompt: string | null;
  params: Record<string, unknown>;
  tokensReserved: number;
  etaSeconds: number;
  delivery: Record<string, unknown> | null;
  sandbox: boolean;
  deadlineAt: Date;
  /** The API key of the request (its budget is checked and counted in the hold); null or absent for none. */
  apiKeyId?: number | null;
  /** The origin of the request that created it (the base of its result link without PUBLIC_URL); null for none. */
  linkOrigin?: string | null;
}

/** Who runs a generation in its own process (see GenerationLeases): taken in the statement that creates it. */
export interface NewLease {
  instanceId: string;
  promptTokens: number;
}

export interface PendingGeneration {
  id: number;
  createdAt: Date;
}

/**
 * Inserts a pending generation and reserves its tokens under `gen:<id>` (and takes its lease, when given), or
 * none of it.
 * @throws InsufficientTokensError, KeyBudgetExceededError
 */
export async function createPendingGeneration(db: Queryable, g: NewGeneration, lease?: NewLease): Promise<PendingGeneration> {
  const rows = await db.query<
    {
      available: number | null;
      key_live: boolean;
      key_ok: boolean;
      key_left: number | null;
      id: number | null;
      created_at: Date | null;
    }[]
  >(
    `WITH nid AS (SELECT nextval(pg_get_serial_sequence('generations', 'id'))::int AS id),
     ${reserveCtes('$1::int', '$2::int', REF_OF('(SELECT id FROM nid)'), '$14::int')},
     g AS (
       INSERT INTO generations (id, user_id, model_slug, category, status, source, prompt, params, tokens_reserved,
                                eta_seconds, delivery, sandbox, deadline_at, api_key_id, link_origin)
       SELECT nid.id, $1, $3, $4, 'pending', $5, $6, $7::jsonb, $2, $8, $9::jsonb, $10, $11, $14, $15 FROM nid, upd
       RETURNING id, created_at
     ), lease AS (
       INSERT INTO generation_leases (generation_id, instance_id, prompt_tokens)
       SELECT id, $12::text, $13::int FROM g WHERE $12::text IS NOT NULL
     )
     SELECT (SELECT plan_tokens + bonus_tokens FROM cur) AS available, (SELECT ok FROM klive) AS key_live,
            (SELECT ok FROM kfit) AS key_ok,
            (SELECT token_budget - spent FROM kcur) AS key_left, (SELECT id FROM g) AS id,
            (SELECT created_at FROM g) AS created_at`,
    [
      g.userId,
      g.tokensReserved,
      g.modelSlug,
      g.category,
      g.source,
      g.prompt,
      JSON.stringify(g.params),
      g.etaSeconds,
      g.delivery ? JSON.stringify(g.delivery) : null,
      g.sandbox,
      g.deadlineAt,
      lease?.instanceId ?? null,
      lease?.promptTokens ?? 0,
      g.apiKeyId ?? null,
      g.linkOrigin ?? null,
    ],
  );
  const row = rows[0];
  if (row.id === null || row.created_at === null) {
    // The key was revoked or expired since this instance verified it: refused here, on every instance alike.
    if (row.key_live === false) throw new InvalidTokenError();
    if (!row.key_ok) throw new KeyBudgetExceededError(g.tokensReserved, Math.max(0, row.key_left ?? 0));
    throw new InsufficientTokensError(g.tokensReserved, row.available ?? 0);
  }
  return { id: row.id, createdAt: new Date(row.created_at) };
}

/** A generation's columns as PostgreSQL returns them (snake_case). */
export type GenerationRow = Record<string, unknown>;

export interface Transition {
  /** Tokens finally charged. */
  tokensSpent: number;
  /** The user's balance right after. */
  balance: number;
  /** The generation right after the transition (what announcing it needs, without reading it again). */
  row: GenerationRow;
}

const toTransition = (row: GenerationRow & { tokens_spent: number; balance_after: number | null }): Transition => ({
  tokensSpent: row.tokens_spent,
  balance: row.balance_after ?? 0,
  row,
});

/** pending -> completed with the reservation settled to `tokensToCharge` (never above what was reserved). */
export async function markCompleted(
  db: Queryable,
  id: number,
  result: StoredResult,
  tokensToCharge: number,
  processingMs: number,
  retentionDays: number | null,
): Promise<Transition | null> {
  const rows = await db.query<(GenerationRow & { tokens_spent: number; balance_after: number | null })[]>(
    `WITH g AS (
       UPDATE generations SET status = 'completed', result_key = $2, result_mime = $3, result_text = $4,
              result_metadata = $5::jsonb, seed = $6, duration_seconds = $7, processing_ms = $8, completed_at = now(),
              expires_at = CASE WHEN $9::int IS NULL THEN NULL ELSE now() + make_interval(days => $9::int) END,
              tokens_spent = LEAST($10::int, tokens_reserved), error = NULL, error_kind = NULL,
              vendor_usage = $11::jsonb, vendor_cost_usd = $12::numeric
        WHERE id = $1 AND status = 'pending'
        RETURNING *
     ),
     ${settleCtes(REF_OF('$1::int'), '$10::int', `'settled'`, 'EXISTS (SELECT 1 FROM g)')}
     SELECT g.*, (SELECT balance FROM bal_upd) AS balance_after FROM g`,
    [
      id,
      result.resultKey,
      result.resultMime,
      result.resultText,
      result.metadata ? JSON.stringify(result.metadata) : null,
      result.seed,
      result.durationSeconds,
      processingMs,
      retentionDays,
      tokensToCharge,
      result.vendorUsage ? JSON.stringify(result.vendorUsage) : null,
      result.vendorCostUsd ?? null,
    ],
  );
  return rows[0] ? toTransition(rows[0]) : null;
}

/** pending -> failed with the reservation released in full: failed generations are not charged. */
export async function markFailed(
  db: Queryable,
  id: number,
  kind: ProviderErrorKind,
  message: string,
  processingMs: number | null,
): Promise<Transition | null> {
  const rows = await db.query<(GenerationRow & { tokens_spent: number; balance_after: number | null })[]>(
    `WITH g AS (
       UPDATE generations SET status = 'failed', error = $2, error_kind = $3, tokens_spent = 0, processing_ms = $4,
              completed_at = now()
        WHERE id = $1 AND status = 'pending'
        RETURNING *
     ),
     ${settleCtes(REF_OF('$1::int'), '0', `'released'`, 'EXISTS (SELECT 1 FROM g)')}
     SELECT g.*, (SELECT balance FROM bal_upd) AS balance_after FROM g`,
    [id, message, kind, processingMs],
  );
  return rows[0] ? toTransition(rows[0]) : null;
}

/**
 * Undoes a pending generation that never ran (the rate check refused the request while its hold was being
 * taken): the hold is released in full (a `release` ledger row), and the generation and its lease are deleted,
 * so the refusal leaves no history. False when it was no longer pending.
 */
export async function withdrawPendingGeneration(db: Queryable, id: number): Promise<boolean> {
  const rows = await db.query<{ id: number }[]>(
    `WITH g AS (
       DELETE FROM generations WHERE id = $1 AND status = 'pending' RETURNING id
     ),
     ${settleCtes(REF_OF('$1::int'), '0', `'released'`, 'EXISTS (SELECT 1 FROM g)')},
     lease AS (
       DELETE FROM generation_leases WHERE generation_id = $1 AND EXISTS (SELECT 1 FROM g)
     )
     SELECT id FROM g`,
    [id],
  );
  return rows.length > 0;
}

/**
 * A pending generation now runs on another model (a fallback took it before the first one's first byte): the row
 * names the model that serves it, so its settlement, a restart's recovery and its history all see that one.
 */
export async function switchPendingModel(db: Queryable, id: number, modelSlug: string): Promise<void> {
  await db.query(`UPDATE generations SET model_slug = $2 WHERE id = $1 AND status = 'pending'`, [id, modelSlug]);
}
