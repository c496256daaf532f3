import { DataSource } from 'typeorm';
import { inTransaction } from '../../db/transaction';
import { BILLING_PERIOD_DAYS, PlanDirectory } from '../accounts/plans';
import { setPlanTokens } from './ledger';

/**
 * At each billing-cycle boundary plan tokens are reset to the plan's allowance (not accumulated); bonus tokens
 * stay. Plans set by the operator renew with the cycle. A bought plan (`plan_paid_through` set) that is not paid
 * beyond the boundary lapses: the account falls back to Starter (plan tokens 0, bonus tokens kept). Safe to run on
 * every instance at once: the user row is locked and each period's refill has a unique ledger reference.
 */
export async function refillDuePlans(ds: DataSource, plans: PlanDirectory, limit = 500): Promise<number> {
  const due = await ds.query<{ id: number }[]>('SELECT id FROM users WHERE next_refill_at <= now() ORDER BY next_refill_at LIMIT $1', [
    limit,
  ]);
  let refilled = 0;
  for (const { id } of due) {
    await inTransaction(ds, async (em) => {
      const rows = await em.query<{ plan_slug: string; next_refill_at: Date; plan_paid_through: Date | null }[]>(
        'SELECT plan_slug, next_refill_at, plan_paid_through FROM users WHERE id = $1 AND next_refill_at <= now() FOR UPDATE SKIP LOCKED',
        [id],
      );
      const user = rows[0];
      if (!user) return;
      const boundary = new Date(user.next_refill_at);
      const lapsed = user.plan_slug !== 'free' && user.plan_paid_through !== null && new Date(user.plan_paid_through) <= boundary;
      if (lapsed) {
        await setPlanTokens(em, id, 0, 'refill', `period:${boundary.toISOString()}`, `${user.plan_slug} not renewed: back to Starter`);
        await em.query(
          `UPDATE users SET plan_slug = 'free', plan_paid_through = NULL, plan_expires_at = NULL, period_started_at = $2,
                  next_refill_at = $2::timestamptz + make_interval(days => $3) WHERE id = $1`,
          [id, boundary, BILLING_PERIOD_DAYS],
        );
        refilled += 1;
        return;
      }
      const plan = await plans.get(user.plan_slug);
      await setPlanTokens(em, id, plan.monthlyTokens, 'refill', `period:${boundary.toISOString()}`, `${plan.slug} allowance`);
      await em.query(
        `UPDATE users SET period_started_at = $2, next_refill_at = $2::timestamptz + make_interval(days => $3),
                plan_expires_at = CASE WHEN plan_slug = 'free' THEN NULL WHEN plan_paid_through IS NOT NULL THEN plan_paid_through
                                       ELSE $2::timestamptz + make_interval(days => $3) END
          WHERE id = $1`,
        [id, boundary, BILLING_PERIOD_DAYS],
      );
      refilled += 1;
    });
  }
  return refilled;
}
