import type { EntityManager } from 'typeorm';
import { grantBonus } from '../billing/ledger';

export interface ReferralBonuses {
  /** Bonus tokens for the account whose link was followed (0: none). */
  inviterBonus: number;
  /** Bonus tokens for the account that joined through it (0: none). */
  inviteeBonus: number;
}

export const NO_REFERRAL_BONUSES: ReferralBonuses = { inviterBonus: 0, inviteeBonus: 0 };

/** What a first payment credited, for the listeners (the bot tells both accounts). */
export interface ReferralReward {
  inviteeId: number;
  inviterId: number | null;
  inviterBonus: number;
  inviteeBonus: number;
}

/** The ledger reference of a referral's bonuses (one per invitee, on each of the two accounts). */
export const referralLedgerReference = (inviteeId: number) => `referral:${inviteeId}`;

/**
 * Inside the transaction that fulfils `order`: when it is the first payment of an invited account (no other order
 * of the account was ever paid) and its referral was not rewarded yet, the referral is marked rewarded and the
 * bonuses are credited as bonus tokens, each a ledger row. Single-shot: the guarded update lets only one
 * fulfilment through, and a later payment finds the referral rewarded. null when nothing was due.
 */
export async function rewardFirstPayment(
  em: EntityManager,
  order: { id: number; userId: number },
  bonuses: ReferralBonuses,
): Promise<ReferralReward | null> {
  const rows = await em.query<{ inviter_id: number | null; inviter_bonus: number; invitee_bonus: number }[]>(
    `WITH r AS (
       UPDATE referrals
          SET rewarded_at = now(), reward_order_id = $2,
              inviter_bonus = CASE WHEN inviter_id IS NULL THEN 0 ELSE $3::int END, invitee_bonus = $4::int
        WHERE invitee_id = $1 AND rewarded_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM payment_orders o WHERE o.user_id = $1 AND o.id <> $2 AND o.paid_at IS NOT NULL)
        RETURNING inviter_id, inviter_bonus, invitee_bonus
     ) SELECT inviter_id, inviter_bonus, invitee_bonus FROM r`,
    [order.userId, order.id, bonuses.inviterBonus, bonuses.inviteeBonus],
  );
  const row = rows[0];
  if (!row) return null;
  const reference = referralLedgerReference(order.userId);
  if (row.invitee_bonus > 0) {
    await grantBonus(em, order.userId, row.invitee_bonus, reference, `joined through an invitation: first payment (order ${order.id})`);
  }
  if (row.inviter_id !== null && row.inviter_bonus > 0) {
    await grantBonus(em, row.inviter_id, row.inviter_bonus, reference, `invited account ${order.userId} made its first payment`);
  }
  return { inviteeId: order.userId, inviterId: row.inviter_id, inviterBonus: row.inviter_bonus, inviteeBonus: row.invitee_bonus };
}
