import { DataSource, EntityManager } from 'typeorm';
import { PaymentOrderEntity } from '../../db/entities';
import { inTransaction, isUniqueViolation } from '../../db/transaction';
import { PlanDirectory } from '../accounts/plans';
import { addDays } from '../accounts/users';
import { grantBonus, setPlanTokens } from '../billing/ledger';
import { NO_REFERRAL_BONUSES, rewardFirstPayment, type ReferralBonuses, type ReferralReward } from '../referrals/first-payment';
import type { OrderRecord } from './orders';

export interface Fulfilment {
  /** False when this order or this charge was already fulfilled: nothing changed. */
  applied: boolean;
  order: OrderRecord;
  /**
   * For a plan: whether it started a new period, extended the paid one, or (bought or renewed while a higher paid
   * plan runs) was credited as bonus tokens worth its allowance, leaving the running plan as it was.
   */
  planChange?: PlanChange;
  /** Bonus tokens credited for a plan order (planChange `bonus`). */
  bonusTokens?: number;
  /** The referral bonuses this payment credited: the first payment of an invited account. */
  referral?: ReferralReward;
}

export type PlanChange = 'new_period' | 'extended' | 'bonus';

interface UserRow {
  plan_slug: string;
  plan_paid_through: Date | null;
}

/** The ledger reference of everything one order does to a balance. */
export const orderLedgerReference = (orderId: number) => `order:${orderId}`;

async function applyPlan(em: EntityManager, plans: PlanDirectory, order: OrderRecord): Promise<{ change: PlanChange; bonus?: number }> {
  const slug = order.planSlug as string;
  const days = order.periodDays ?? 30;
  const plan = await plans.get(slug);
  const [user] = await em.query<UserRow[]>('SELECT plan_slug, plan_paid_through FROM users WHERE id = $1 FOR UPDATE', [order.userId]);
  const now = new Date();
  const reference = orderLedgerReference(order.id);
  const paidThrough = user.plan_paid_through ? new Date(user.plan_paid_through) : null;
  const paidPlanRuns = paidThrough !== null && paidThrough > now;
  if (paidPlanRuns && user.plan_slug !== slug && (await plans.get(user.plan_slug)).level > plan.level) {
    // A lower plan paid while a higher one runs (a Stars renewal that still came): switching would lose the paid
    // higher period, so the money comes in as bonus tokens worth the lower plan's allowance.
    if (plan.monthlyTokens > 0)
      await grantBonus(
        em,
        order.userId,
        plan.monthlyTokens,
        reference,
        `${slug} paid while ${user.plan_slug} runs: credited as bonus tokens`,
      );
    return { change: 'bonus', bonus: plan.monthlyTokens };
  }
  if (user.plan_slug === slug && paidThrough && paidPlanRuns) {
    // A renewal (or a second month bought early): the paid period grows; tokens reset at the next refill as usual.
    const through = addDays(paidThrough, days);
    await em.query('UPDATE users SET plan_paid_through = $2, plan_expires_at = $2, updated_at = now() WHERE id = $1', [
      order.userId,
      through,
    ]);
    await em.query(
      `INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, note) VALUES ($1, 'purchase', $2, 0, 0, $3)`,
      [order.userId, reference, `${slug} paid through ${through.toISOString()}`],
    );
    return { change: 'extended' };
  }
  const through = addDays(now, days);
  await em.query(
    `UPDATE users SET plan_slug = $2, period_started_at = $3, next_refill_at = $4, plan_expires_at = $4, plan_paid_through = $4, updated_at = now()
      WHERE id = $1`,
    [order.userId, slug, now, through],
  );
  await setPlanTokens(em, order.userId, plan.monthlyTokens, 'refill', reference, `${slug} plan bought: new period, allowance`);
  return { change: 'new_period' };
}

/**
 * Fulfils an order paid by `providerChargeId`, in ONE transaction: the order goes pending (or expired: the
 * provider took the money after we gave up waiting) -> paid -> fulfilled, the charge id is stored under a unique
 * constraint, and the ledger rows are written (a `grant` of bonus tokens; or a plan change starting a new period
 * with the plan's allowance, or extending the paid period; and the referral bonuses of an invited account's first
 * payment). A duplicate, a replay or a concurrent copy changes nothing and answers `applied: false`.
 */
export async function fulfil(
  ds: DataSource,
  plans: PlanDirectory,
  orderId: number,
  providerChargeId: string,
  referralBonuses: ReferralBonuses = NO_REFERRAL_BONUSES,
): Promise<Fulfilment> {
  try {
    const result = await inTransaction(ds, async (em) => {
      const paid = await em.query<{ id: number }[]>(
        `WITH u AS (
           UPDATE payment_orders SET status = 'paid', provider_charge_id = $2, paid_at = now(), updated_at = now()
            WHERE id = $1 AND status IN ('pending', 'expired') RETURNING id
         ) SELECT id FROM u`,
        [orderId, providerChargeId],
      );
      if (paid.length === 0) return null;
      const order = await em.getRepository(PaymentOrderEntity).findOneByOrFail({ id: orderId });
      let planChange: Fulfilment['planChange'];
      let bonusTokens: number | undefined;
      if (order.kind === 'tokens') {
        await grantBonus(
          em,
          order.userId,
          order.tokens ?? 0,
          orderLedgerReference(order.id),
          `${order.articleId} bought (${order.provider} ${providerChargeId})`,
        );
      } else {
        ({ change: planChange, bonus: bonusTokens } = await applyPlan(em, plans, order));
      }
      const referral = (await rewardFirstPayment(em, order, referralBonuses)) ?? undefined;
      await em.query(`UPDATE payment_orders SET status = 'fulfilled', fulfilled_at = now(), updated_at = now() WHERE id = $1`, [orderId]);
      return { order: await em.getRepository(PaymentOrderEntity).findOneByOrFail({ id: orderId }), planChange, bonusTokens, referral };
    });
    if (result) return { applied: true, ...result };
  } catch (err) {
    // The charge id already paid another order (a replayed renewal): nothing of this transaction stays.
    if (!isUniqueViolation(err)) throw err;
  }
  return { applied: false, order: await ds.getRepository(PaymentOrderEntity).findOneByOrFail({ id: orderId }) };
}
