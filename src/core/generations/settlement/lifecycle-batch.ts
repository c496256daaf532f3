import { InvalidTokenError } from '../../accounts/errors';
import { InsufficientTokensError } from '../../billing/errors';
import { ItemResult } from '../../billing/group-commit';
import { reserveBatchCtes, settleBatchCtes } from '../../billing/ledger';
import { Queryable } from '../../billing/queryable';
import type { DeferredOutcome } from './billing-outbox';
import { createPendingGeneration, GenerationRow, NewGeneration, NewLease, PendingGeneration, REF_OF, Transition } from './lifecycle';

// The batch forms of createPendingGeneration and of the chat transitions (markCompleted / markFailed as
// applyDeferredOutcome calls them): ONE statement for many items, with the same per-item outcome as the single
// statement would have given in arrival order.

export interface GenerationToOpen {
  generation: NewGeneration;
  lease?: NewLease;
}

// Items of an API key with a token budget (`solo`) skip the batch: each goes through createPendingGeneration, whose
// one statement checks the key's budget under its lock.
const OPEN_SQL = `WITH RECURSIVE given AS (
    SELECT t.*
      FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[],
                  $10::boolean[], $11::timestamptz[], $12::text[], $13::int[], $14::int[])
           WITH ORDINALITY AS t(user_id, amount, model_slug, category, source, prompt, params, eta_seconds, delivery,
                                sandbox, deadline_at, lease_instance, lease_prompt_tokens, key_id, ord)
  ), solo AS (
    SELECT gv.ord FROM given gv JOIN api_keys k ON k.id = gv.key_id WHERE k.token_budget IS NOT NULL
  ), gone AS (
    SELECT gv.ord FROM given gv
     WHERE gv.key_id IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM api_keys k
        WHERE k.id = gv.key_id AND k.user_id = gv.user_id AND (k.expires_at IS NULL OR k.expires_at > now()))
  ), items AS (
    SELECT t.*, row_number() OVER (PARTITION BY t.user_id ORDER BY t.ord) AS n
      FROM given t WHERE t.ord NOT IN (SELECT ord FROM solo) AND t.ord NOT IN (SELECT ord FROM gone)
  ), ${reserveBatchCtes('items', "nextval(pg_get_serial_sequence('generations', 'id'))::int AS id", REF_OF('ok.id'), 'i.key_id')},
  g AS (
    INSERT INTO generations (id, user_id, model_slug, category, status, source, prompt, params, tokens_reserved,
                             eta_seconds, delivery, sandbox, deadline_at, api_key_id)
    SELECT ok.id, i.user_id, i.model_slug, i.category, 'pending', i.source, i.prompt, i.params::jsonb, i.amount,
           i.eta_seconds, i.delivery::jsonb, i.sandbox, i.deadline_at, i.key_id
      FROM ok JOIN items i ON i.ord = ok.ord
    RETURNING id, created_at
  ), lease AS (
    INSERT INTO generation_leases (generation_id, instance_id, prompt_tokens)
    SELECT ok.id, i.lease_instance, i.lease_prompt_tokens FROM ok JOIN items i ON i.ord = ok.ord WHERE i.lease_instance IS NOT NULL
  )
  SELECT gv.ord, gv.amount, w.avail AS available, g.id, g.created_at, gv.ord IN (SELECT ord FROM solo) AS solo,
         gv.ord IN (SELECT ord FROM gone) AS gone
    FROM given gv LEFT JOIN walk w ON w.ord = gv.ord LEFT JOIN ok ON ok.ord = gv.ord LEFT JOIN g ON g.id = ok.id
   ORDER BY gv.ord`;

/** createPendingGeneration for many generations: each is admitted while its user's balance covers it. */
export async function createPendingGenerations(
  db: Queryable,
  items: readonly GenerationToOpen[],
): Promise<ItemResult<PendingGeneration>[]> {
  const column = <T>(pick: (item: GenerationToOpen) => T): T[] => items.map(pick);
  const rows = await db.query<
    { amount: number; available: number | null; id: number | null; created_at: Date | null; solo: boolean; gone: boolean }[]
  >(OPEN_SQL, [
    column((i) => i.generation.userId),
    column((i) => i.generation.tokensReserved),
    column((i) => i.generation.modelSlug),
    column((i) => i.generation.category),
    column((i) => i.generation.source),
    column((i) => i.generation.prompt),
    column((i) => JSON.stringify(i.generation.params)),
    column((i) => i.generation.etaSeconds),
    column((i) => (i.generation.delivery ? JSON.stringify(i.generation.delivery) : null)),
    column((i) => i.generation.sandbox),
    column((i) => i.generation.deadlineAt),
    column((i) => i.lease?.instanceId ?? null),
    column((i) => i.lease?.promptTokens ?? 0),
    column((i) => i.generation.apiKeyId ?? null),
  ]);
  return Promise.all(
    rows.map(async (row, index): Promise<ItemResult<PendingGeneration>> => {
      if (row.gone) return { ok: false, error: new InvalidTokenError() };
      if (row.solo) {
        const item = items[index];
        try {
          return { ok: true, value: await createPendingGeneration(db, item.generation, item.lease) };
        } catch (error) {
          return { ok: false, error };
        }
      }
      return row.id !== null && row.created_at !== null
        ? { ok: true, value: { id: row.id, createdAt: new Date(row.created_at) } }
        : { ok: false, error: new InsufficientTokensError(row.amount, row.available ?? 0) };
    }),
  );
}

const FINISH_SQL = `WITH items AS (
    SELECT DISTINCT ON (t.id) t.*
      FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::int[], $9::text[],
                  $10::numeric[])
           WITH ORDINALITY AS t(id, status, result_text, metadata, charge, error_kind, error, processing_ms, vendor_usage,
                                vendor_cost_usd, ord)
     ORDER BY t.id, t.ord
  ), g AS (
    UPDATE generations gen
       SET status = i.status,
           result_key = CASE WHEN i.status = 'completed' THEN NULL ELSE gen.result_key END,
           result_mime = CASE WHEN i.status = 'completed' THEN NULL ELSE gen.result_mime END,
           result_text = CASE WHEN i.status = 'completed' THEN i.result_text ELSE gen.result_text END,
           result_metadata = CASE WHEN i.status = 'completed' THEN i.metadata::jsonb ELSE gen.result_metadata END,
           seed = CASE WHEN i.status = 'completed' THEN NULL ELSE gen.seed END,
           duration_seconds = CASE WHEN i.status = 'completed' THEN NULL ELSE gen.duration_seconds END,
           expires_at = CASE WHEN i.status = 'completed' THEN NULL ELSE gen.expires_at END,
           processing_ms = i.processing_ms, completed_at = now(), tokens_spent = LEAST(i.charge, gen.tokens_reserved),
           error = i.error, error_kind = i.error_kind,
           vendor_usage = i.vendor_usage::jsonb, vendor_cost_usd = i.vendor_cost_usd
      FROM items i
     WHERE gen.id = i.id AND gen.status = 'pending'
    RETURNING gen.*, i.ord AS item_ord, i.charge AS item_charge
  ), fin AS (
    SELECT item_ord AS ord, ${REF_OF('id')} AS ref, item_charge AS charge,
           CASE WHEN status = 'completed' THEN 'settled' ELSE 'released' END AS status
      FROM g
  ), ${settleBatchCtes('fin')}
  SELECT g.*, s.balance AS balance_after FROM g LEFT JOIN settled s ON s.ord = g.item_ord`;

/**
 * applyDeferredOutcome for many outcomes (completions settle, failures release in full). Each generation moves
 * once: an outcome for a generation that is no longer pending, or the second one for the same generation in the
 * batch, gets null.
 */
export async function finishGenerations(db: Queryable, outcomes: readonly DeferredOutcome[]): Promise<ItemResult<Transition | null>[]> {
  const rows = await db.query<
    (GenerationRow & { item_ord: string; item_charge: number; tokens_spent: number; balance_after: number | null })[]
  >(FINISH_SQL, [
    outcomes.map((o) => o.generationId),
    outcomes.map((o) => (o.op === 'complete' ? 'completed' : 'failed')),
    outcomes.map((o) => (o.op === 'complete' ? o.text : null)),
    outcomes.map((o) => (o.op === 'complete' ? JSON.stringify(o.metadata) : null)),
    outcomes.map((o) => (o.op === 'complete' ? o.cost : 0)),
    outcomes.map((o) => (o.op === 'fail' ? o.kind : null)),
    outcomes.map((o) => (o.op === 'fail' ? o.message : null)),
    outcomes.map((o) => o.processingMs),
    outcomes.map((o) => (o.op === 'complete' && o.vendorUsage ? JSON.stringify(o.vendorUsage) : null)),
    outcomes.map((o) => (o.op === 'complete' ? (o.vendorCostUsd ?? null) : null)),
  ]);
  const byOrd = new Map(rows.map(({ item_ord, item_charge: _charge, ...row }) => [Number(item_ord), row]));
  return outcomes.map((_, i) => {
    const row = byOrd.get(i + 1);
    return { ok: true, value: row ? { tokensSpent: row.tokens_spent, balance: row.balance_after ?? 0, row } : null };
  });
}
