import { DataSource } from 'typeorm';
import type { Logger } from '../../logger';
import { PlanDirectory } from '../accounts/plans';
import { majorAmount } from './articles';
import type { ReferralBonuses } from '../referrals/first-payment';
import { fulfil, type Fulfilment } from './fulfilment';
import type { OrderRecord } from './orders';
import type { PaymentHub } from './ports';
import { reverseCredit, type Reversal } from './refunds';

/** Fulfilment and refund with their announcements: listeners hear of each paid or refunded order exactly once. */
export class PaymentSettlement {
  private planBought?: (order: OrderRecord) => Promise<void>;

  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly hub: PaymentHub,
    private readonly log: Logger,
    private readonly referralBonuses?: ReferralBonuses,
  ) {}

  private async names(order: OrderRecord): Promise<{ userName: string; articleTitle: string }> {
    const rows = await this.ds.query<{ name: string; title: string }[]>(
      'SELECT u.name, a.title FROM users u, articles a WHERE u.id = $1 AND a.id = $2',
      [order.userId, order.articleId],
    );
    return { userName: rows[0]?.name ?? `#${order.userId}`, articleTitle: rows[0]?.title ?? order.articleId };
  }

  private base(order: OrderRecord, names: { userName: string; articleTitle: string }) {
    return {
      orderId: order.id,
      reference: order.reference,
      userId: order.userId,
      ...names,
      articleId: order.articleId,
      kind: order.kind,
      tokens: order.tokens,
      plan: order.planSlug,
      amount: majorAmount(order.amountMinor, order.currency),
      currency: order.currency,
      provider: order.provider,
      chargeId: order.providerChargeId ?? '',
    };
  }

  /** Runs after a plan order (not a renewal) is fulfilled: the other subscriptions stop. */
  whenPlanBought(action: (order: OrderRecord) => Promise<void>): void {
    this.planBought = action;
  }

  /** fulfil() once per order and charge; announces `payment.succeeded` (and a referral's bonuses) when it applied. */
  async fulfil(orderId: number, chargeId: string): Promise<Fulfilment> {
    const result = await fulfil(this.ds, this.plans, orderId, chargeId, this.referralBonuses);
    if (result.applied) {
      const order = result.order;
      this.log.info({ orderId, provider: order.provider, chargeId, article: order.articleId }, 'order paid and fulfilled');
      await this.hub.succeeded({
        ...this.base(order, await this.names(order)),
        renewal: order.parentOrderId !== null,
        paidAt: order.paidAt ?? new Date(),
      });
      if (order.kind === 'plan' && order.parentOrderId === null) await this.planBought?.(order);
      if (result.referral) await this.hub.referralRewarded({ ...result.referral, orderId, provider: order.provider });
    }
    return result;
  }

  /** reverseCredit() once per order; announces the refund when it applied. */
  async reverse(orderId: number): Promise<Reversal> {
    const result = await reverseCredit(this.ds, this.plans, orderId);
    if (result.applied) {
      const order = result.order;
      this.log.info({ orderId, taken: result.tokensTaken, spent: result.tokensSpent }, 'order refunded');
      await this.hub.refunded({
        ...this.base(order, await this.names(order)),
        tokensTaken: result.tokensTaken,
        tokensSpent: result.tokensSpent,
        refundedAt: order.refundedAt ?? new Date(),
      });
    }
    return result;
  }
}
