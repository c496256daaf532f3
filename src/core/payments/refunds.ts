import { DataSource, EntityManager } from 'typeorm';
import { PaymentOrderEntity } from '../../db/entities';
import { inTransaction } from '../../db/transaction';
import { BILLING_PERIOD_DAYS, PlanDirectory } from '../accounts/plans';
import { addDays } from '../accounts/users';
import { orderLedgerReference } from './fulfilment';
import type { OrderRecord } from './orders';

export interface Reversal {
  /** False when the order was already refunded (or never fulfilled): nothing changed. */
  applied: boolean;
  order: OrderRecord;
  tokensTaken: number;
  tokensSpent: number;
}

/** Takes back up to `amount` bonus tokens, never below zero; one ledger row. Returns what was taken. */
async function takeBonus(em: EntityManager, userId: number, amount: number, reference: string, note: string): Promise<number> {
  const rows = await em.query<{ taken: number }[]>(
    `WITH cur AS (
       SELECT user_id, bonus_tokens FROM balances WHERE user_id = $1 FOR UPDATE
     ), take AS (
       SELECT user_id, LEAST(bonus_tokens, $2::int) AS b FROM cur
     ), upd AS (
       UPDATE balances bal SET bonus_tokens = bal.bonus_tokens - take.b, updated_at = now() FROM take WHERE bal.user_id = take.user_id RETURNING take.b
     ), led AS (
       INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, note)
       SELECT user_id, 'refund', $3, 0, -b, $4 FROM take
     )
     SELECT b AS taken FROM upd`,
    [userId, amount, reference, note],
  );
  return rows[0]?.taken ?? 0;
}

/**
 * A refunded plan period comes off the paid-through date; when nothing paid is left the account falls back to
 * Starter now and the plan tokens still unspent (up to the allowance) are taken back.
 */
async function revertPlan(
  em: EntityManager,
  plans: PlanDirectory,
  order: OrderRecord,
  reference: string,
): Promise<{ taken: number; spent: number }> {
  const allowance = (await plans.get(order.planSlug as string)).monthlyTokens;
  const [credited] = await em.query<{ bonus: number }[]>(
    `SELECT COALESCE(SUM(bonus_delta), 0)::int AS bonus FROM ledger_entries WHERE user_id = $1 AND reference = $2 AND kind = 'grant'`,
    [order.userId, reference],
  );
  if (credited.bonus > 0) {
    // Paid while a higher plan ran, the order came in as bonus tokens: those are what is taken back.
    const taken = await takeBonus(em, order.userId, credited.bonus, reference, `${order.articleId} refunded (credited as bonus tokens)`);
    return { taken, spent: credited.bonus - taken };
  }
  const [user] = await em.query<{ plan_slug: string; plan_paid_through: Date | null; plan_tokens: number }[]>(
    `SELECT u.plan_slug, u.plan_paid_through, b.plan_tokens FROM users u JOIN balances b ON b.user_id = u.id WHERE u.id = $1 FOR UPDATE`,
    [order.userId],
  );
  const now = new Date();
  if (user.plan_slug !== order.planSlug || !user.plan_paid_through) {
    // The account has moved on to another plan: there is nothing of this order left to take.
    await em.query(
      `INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, note) VALUES ($1, 'refund', $2, 0, 0, $3)`,
      [order.userId, reference, `${order.articleId} refunded; the plan had already changed`],
    );
    return { taken: 0, spent: allowance };
  }
  const through = addDays(new Date(user.plan_paid_through), -(order.periodDays ?? BILLING_PERIOD_DAYS));
  if (through > now) {
    await em.query('UPDATE users SET plan_paid_through = $2, plan_expires_at = $2, updated_at = now() WHERE id = $1', [
      order.userId,
      through,
    ]);
    await em.query(
      `INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, note) VALUES ($1, 'refund', $2, 0, 0, $3)`,
      [order.userId, reference, `${order.articleId} refunded; paid through ${through.toISOString()}`],
    );
    return { taken: 0, spent: 0 };
  }
  const taken = Math.min(user.plan_tokens, allowance);
  await em.query(
    `UPDATE users SET plan_slug = 'free', plan_paid_through = NULL, plan_expires_at = NULL, updated_at = now() WHERE id = $1`,
    [order.userId],
  );
  await em.query(
    `WITH upd AS (UPDATE balances SET plan_tokens = plan_tokens - $2, updated_at = now() WHERE user_id = $1 RETURNING user_id)
     INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta, note) SELECT user_id, 'refund', $3, -$2::int, 0, $4 FROM upd`,
    [order.userId, taken, reference, `${order.articleId} refunded: back to Starter`],
  );
  return { taken, spent: allowance - taken };
}

/**
 * fulfilled (or refund_pending) -> refunded, in one transaction with its ledger row: takes back what is left of the credit, never
 * below zero, and records what had already been spent. Single-shot: a second call changes nothing.
 */
export async function reverseCredit(ds: DataSource, plans: PlanDirectory, orderId: number): Promise<Reversal> {
  const result = await inTransaction(ds, async (em) => {
    const marked = await em.query<{ id: number }[]>(
      `WITH u AS (
         UPDATE payment_orders SET status = 'refunded', refunded_at = now(), updated_at = now()
          WHERE id = $1 AND status IN ('fulfilled', 'refund_pending') RETURNING id
       ) SELECT id FROM u`,
      [orderId],
    );
    if (marked.length === 0) return null;
    const order = await em.getRepository(PaymentOrderEntity).findOneByOrFail({ id: orderId });
    const reference = orderLedgerReference(order.id);
    let taken: number;
    let spent: number;
    if (order.kind === 'tokens') {
      const tokens = order.tokens ?? 0;
      taken = await takeBonus(
        em,
        order.userId,
        tokens,
        reference,
        `${order.articleId} refunded (${order.provider} ${order.providerChargeId})`,
      );
      spent = tokens - taken;
    } else {
      ({ taken, spent } = await revertPlan(em, plans, order, reference));
    }
    await em.query('UPDATE payment_orders SET refund_tokens_taken = $2, refund_tokens_spent = $3, refund_error = NULL WHERE id = $1', [
      orderId,
      taken,
      spent,
    ]);
    return { order: await em.getRepository(PaymentOrderEntity).findOneByOrFail({ id: orderId }), taken, spent };
  });
  if (!result) {
    const order = await ds.getRepository(PaymentOrderEntity).findOneByOrFail({ id: orderId });
    return { applied: false, order, tokensTaken: order.refundTokensTaken ?? 0, tokensSpent: order.refundTokensSpent ?? 0 };
  }
  return { applied: true, order: result.order, tokensTaken: result.taken, tokensSpent: result.spent };
}
