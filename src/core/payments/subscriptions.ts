import { DataSource } from 'typeorm';
import { PaymentOrderEntity, type PaymentProviderName } from '../../db/entities';
import type { Logger } from '../../logger';
import type { OrderRecord } from './orders';
import type { PaymentHub, RefundGateway } from './ports';

/**
 * One plan subscription at a time: when a plan is bought (by card or by Stars), every other Stars subscription of
 * the account stops renewing (editUserStarSubscription at Telegram), and the buyer is told. A renewal that still
 * comes is not lost: fulfilment credits it as bonus tokens while a higher plan runs.
 */
export class SubscriptionReplacer {
  constructor(
    private readonly ds: DataSource,
    private readonly gatewayOf: (provider: PaymentProviderName) => RefundGateway | undefined,
    private readonly hub: PaymentHub,
    private readonly log: Logger,
  ) {}

  /** Stars subscriptions still renewing besides the one `order` belongs to. */
  private async others(order: OrderRecord): Promise<OrderRecord[]> {
    const ownRoot = order.parentOrderId ?? order.id;
    const rows = await this.ds.query<{ id: number }[]>(
      `SELECT id FROM payment_orders
        WHERE user_id = $1 AND provider = 'stars' AND is_subscription AND parent_order_id IS NULL
          AND status = 'fulfilled' AND subscription_canceled_at IS NULL AND id <> $2`,
      [order.userId, ownRoot],
    );
    if (rows.length === 0) return [];
    return this.ds.getRepository(PaymentOrderEntity).findBy(rows.map((r) => ({ id: r.id })));
  }

  /** After a plan order was fulfilled (not a renewal): cancels the other subscriptions. Never throws. */
  async planBought(order: OrderRecord): Promise<void> {
    if (order.kind !== 'plan' || order.parentOrderId !== null) return;
    let others: OrderRecord[];
    try {
      others = await this.others(order);
    } catch (err) {
      this.log.error({ err, orderId: order.id }, 'other subscriptions could not be listed');
      return;
    }
    for (const subscription of others) {
      const gateway = this.gatewayOf(subscription.provider);
      if (!gateway?.cancelSubscription) {
        this.log.warn({ orderId: subscription.id }, 'a replaced Stars subscription cannot be canceled in this process');
        continue;
      }
      try {
        const [buyer] = await this.ds.query<{ telegram_id: string | null }[]>('SELECT telegram_id FROM users WHERE id = $1', [
          subscription.userId,
        ]);
        await gateway.cancelSubscription(subscription, { telegramId: buyer?.telegram_id ?? null });
        const marked = await this.ds.query<unknown[]>(
          `WITH u AS (UPDATE payment_orders SET subscription_canceled_at = now(), updated_at = now()
                       WHERE id = $1 AND subscription_canceled_at IS NULL RETURNING id) SELECT id FROM u`,
          [subscription.id],
        );
        if (marked.length === 0) continue;
        this.log.info({ orderId: subscription.id, replacedBy: order.id }, 'Stars subscription canceled: another plan was bought');
        await this.hub.subscriptionReplaced({
          userId: subscription.userId,
          telegramId: buyer?.telegram_id ?? null,
          canceledPlan: subscription.planSlug ?? '',
          newPlan: order.planSlug ?? '',
          orderId: subscription.id,
        });
      } catch (err) {
        // A renewal that still comes is credited as bonus tokens, so nothing paid is lost; the admins see the log.
        this.log.error({ err, orderId: subscription.id }, 'a replaced Stars subscription could not be canceled');
      }
    }
  }
}
