import { DataSource } from 'typeorm';
import { inTransaction } from '../../db/transaction';
import { BILLING_PERIOD_DAYS, PlanDirectory } from '../accounts/plans';
import { setPlanTokens } from './ledger';

/**
 * At each billing-cycle boundary plan tokens are reset to the plan's allowance (not accumulated); bonus tokens
 * stay. Plans set by the operator renew with the cycle. Safe to run on every instance at once: the user row is
 * locked and each period's refill has a unique ledger reference.
 */
export async function refillDuePlans(ds: DataSource, plans: PlanDirectory, limit = 500): Promise<number> {
  const due = await ds.query<{ id: number }[]>(
    'SELECT id FROM users WHERE next_refill_at <= now() ORDER BY next_refill_at LIMIT $1',
    [limit],
  );
  let refilled = 0;
  for (const { id } of due) {
    await inTransaction(ds, async (em) => {
      const rows = await em.query<{ plan_slug: string; next_refill_at: Date }[]>(
        'SELECT plan_slug, next_refill_at FROM users WHERE id = $1 AND next_refill_at <= now() FOR UPDATE SKIP LOCKED',
        [id],
      );
      const user = rows[0];
      if (!user) return;
      const plan = await plans.get(user.plan_slug);
      const boundary = new Date(user.next_refill_at);
      await setPlanTokens(em, id, plan.monthlyTokens, 'refill', `period:${boundary.toISOString()}`, `${plan.slug} allowance`);
      await em.query(
        `UPDATE users SET period_started_at = $2, next_refill_at = $2::timestamptz + make_interval(days => $3),
                plan_expires_at = CASE WHEN plan_slug = 'free' THEN NULL ELSE $2::timestamptz + make_interval(days => $3) END
          WHERE id = $1`,
        [id, boundary, BILLING_PERIOD_DAYS],
      );
      refilled += 1;
    });
  }
  return refilled;
}
