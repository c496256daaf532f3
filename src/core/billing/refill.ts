import { DataSource } from 'typeorm';
import { BILLING_PERIOD_DAYS } from '../accounts/plans';

/** Accounts refilled per statement: big enough to keep up with a whole cohort, small enough to hold locks briefly. */
export const REFILL_BATCH = 2_000;

/**
 * One statement refilling up to `$1` due accounts. At each billing-cycle boundary plan tokens are reset to the plan's
 * allowance (not accumulated); bonus tokens stay. Plans set by the operator renew with the cycle. A bought plan
 * (`plan_paid_through` set) that is not paid beyond the boundary lapses: the account falls back to Starter (plan
 * tokens 0, bonus tokens kept). Users are taken with SKIP LOCKED (instances share the cohort), balances are locked
 * in user order (no deadlock with another batch), and each period's ledger row has a unique reference: a period
 * already refilled moves no balance twice.
 */
const REFILL_BATCH_SQL = `
  WITH due AS (
    SELECT u.id, u.plan_slug, u.next_refill_at AS boundary,
           (u.plan_slug <> 'free' AND u.plan_paid_through IS NOT NULL AND u.plan_paid_through <= u.next_refill_at) AS lapsed
      FROM users u
     WHERE u.next_refill_at <= now()
     ORDER BY u.next_refill_at
     LIMIT $1
       FOR UPDATE SKIP LOCKED
  ), target AS (
    SELECT due.id, due.boundary, due.lapsed,
           CASE WHEN due.lapsed THEN 0 ELSE p.monthly_tokens END AS tokens,
           CASE WHEN due.lapsed THEN due.plan_slug || ' not renewed: back to Starter' ELSE p.slug || ' allowance' END AS note,
           'period:' || to_char(due.boundary AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS reference
      FROM due JOIN plans p ON p.slug = due.plan_slug
  ), cur AS (
    SELECT b.user_id, b.plan_tokens FROM balances b WHERE b.user_id IN (SELECT id FROM target) ORDER BY b.user_id FOR UPDATE
  ), led AS (
    INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, note)
    SELECT cur.user_id, 'refill', t.reference, t.tokens - cur.plan_tokens, 0, t.note FROM cur JOIN target t ON t.id = cur.user_id
        ON CONFLICT (user_id, kind, reference) WHERE reference IS NOT NULL DO NOTHING
    RETURNING user_id
  ), bal AS (
    UPDATE balances b SET plan_tokens = t.tokens, tokens_used_this_period = 0, updated_at = now()
      FROM target t JOIN led ON led.user_id = t.id
     WHERE b.user_id = t.id
  ), usr AS (
    UPDATE users u
       SET plan_slug = CASE WHEN t.lapsed THEN 'free' ELSE u.plan_slug END,
           plan_paid_through = CASE WHEN t.lapsed THEN NULL ELSE u.plan_paid_through END,
           period_started_at = t.boundary,
           next_refill_at = t.boundary + make_interval(days => $2),
           plan_expires_at = CASE WHEN t.lapsed OR u.plan_slug = 'free' THEN NULL
                                  WHEN u.plan_paid_through IS NOT NULL THEN u.plan_paid_through
                                  ELSE t.boundary + make_interval(days => $2) END
      FROM target t
     WHERE u.id = t.id
    RETURNING u.id
  )
  SELECT count(*)::int AS n FROM usr`;

export interface RefillOptions {
  batchSize?: number;
  /** Stop starting batches after this long (the rest waits for the next run). */
  budgetMs?: number;
}

/** Refills every due account, batch after batch; returns how many. Safe to run on every instance at once. */
export async function refillDuePlans(ds: DataSource, options: RefillOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? REFILL_BATCH;
  const stopAt = Date.now() + (options.budgetMs ?? 5 * 60_000);
  let refilled = 0;
  for (;;) {
    const rows = await ds.query<{ n: number }[]>(REFILL_BATCH_SQL, [batchSize, BILLING_PERIOD_DAYS]);
    refilled += rows[0].n;
    if (rows[0].n < batchSize || Date.now() >= stopAt) return refilled;
  }
}
