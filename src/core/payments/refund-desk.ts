import { DataSource } from 'typeorm';
import { PaymentOrderEntity, type PaymentProviderName } from '../../db/entities';
import type { Logger } from '../../logger';
import { OrderNotRefundableError, PaymentProviderRejectedError, PaymentProviderUnavailableError, UnknownChargeError } from './errors';
import type { OrderRecord } from './orders';
import type { RefundGateway, RefundQueue } from './ports';
import type { Reversal } from './refunds';
import type { PaymentSettlement } from './settlement';

export type RefundState = 'refunded' | 'already_refunded' | 'queued' | 'failed';

export interface RefundResult {
  state: RefundState;
  order: OrderRecord;
  reversal?: Reversal;
  error?: string;
}

/**
 * Refunds by provider charge id: the request is recorded first (durable), then the provider is asked; a provider
 * answer of "already refunded" counts as done; 429/5xx/no answer leave the request to the retrying job. Only after
 * the provider gave the money back is the credit reversed.
 */
export class RefundDesk {
  private readonly gateways = new Map<PaymentProviderName, RefundGateway>();
  private queue?: RefundQueue;

  constructor(
    private readonly ds: DataSource,
    private readonly settlement: PaymentSettlement,
    private readonly log: Logger,
  ) {}

  useGateway(provider: PaymentProviderName, gateway: RefundGateway): void {
    this.gateways.set(provider, gateway);
  }

  gateway(provider: PaymentProviderName): RefundGateway | undefined {
    return this.gateways.get(provider);
  }

  useQueue(queue: RefundQueue): void {
    this.queue = queue;
  }

  /** @throws UnknownChargeError, OrderNotRefundableError */
  async request(chargeId: string): Promise<RefundResult> {
    const order = await this.ds.getRepository(PaymentOrderEntity).findOneBy({ providerChargeId: chargeId.trim() });
    if (!order) throw new UnknownChargeError(chargeId);
    if (order.status === 'refunded') return { state: 'already_refunded', order };
    if (order.status !== 'fulfilled') throw new OrderNotRefundableError(order.status);
    await this.ds.query(
      'UPDATE payment_orders SET refund_requested_at = COALESCE(refund_requested_at, now()), updated_at = now() WHERE id = $1',
      [order.id],
    );
    await this.queue?.enqueue(order.id);
    return this.process(order.id);
  }

  /**
   * One attempt at a recorded refund request. The job calls it with `rethrow` so that retryable failures are retried
   * with backoff; the admin command gets `queued` instead.
   */
  async process(orderId: number, options: { rethrow?: boolean } = {}): Promise<RefundResult> {
    const repo = this.ds.getRepository(PaymentOrderEntity);
    const order = await repo.findOneByOrFail({ id: orderId });
    if (order.status === 'refunded') return { state: 'already_refunded', order };
    if (order.status !== 'fulfilled' || !order.refundRequestedAt) return { state: 'failed', order, error: `order is ${order.status}` };
    const gateway = this.gateways.get(order.provider);
    try {
      if (!gateway) throw new PaymentProviderUnavailableError(order.provider, 'not connected in this process');
      const answer = await gateway.refund(order, await this.buyer(order));
      if (answer === 'already_refunded') this.log.info({ orderId }, 'provider says the charge was already refunded: counted as done');
    } catch (err) {
      if (err instanceof PaymentProviderRejectedError) {
        await this.ds.query('UPDATE payment_orders SET refund_error = $2, refund_requested_at = NULL WHERE id = $1', [
          orderId,
          err.message.slice(0, 500),
        ]);
        this.log.warn({ orderId, err: err.message }, 'refund refused by the provider');
        return { state: 'failed', order: await repo.findOneByOrFail({ id: orderId }), error: err.message };
      }
      if (options.rethrow) throw err;
      this.log.warn({ orderId, err: (err as Error).message }, 'refund not done yet: retried by the job');
      return { state: 'queued', order, error: (err as Error).message };
    }
    const reversal = await this.settlement.reverse(orderId);
    if (reversal.applied && order.isSubscription) await this.stopSubscription(order, gateway);
    return { state: reversal.applied ? 'refunded' : 'already_refunded', order: reversal.order, reversal };
  }

  private async buyer(order: OrderRecord): Promise<{ telegramId: string | null }> {
    const [row] = await this.ds.query<{ telegram_id: string | null }[]>('SELECT telegram_id FROM users WHERE id = $1', [order.userId]);
    return { telegramId: row?.telegram_id ?? null };
  }

  /** A refunded subscription payment also stops the renewals (best effort: the refund itself is done). */
  private async stopSubscription(order: OrderRecord, gateway: RefundGateway | undefined): Promise<void> {
    const root = await this.ds.getRepository(PaymentOrderEntity).findOneBy({ id: order.parentOrderId ?? order.id });
    if (!root || root.subscriptionCanceledAt || !gateway?.cancelSubscription) return;
    try {
      await gateway.cancelSubscription(root, await this.buyer(root));
      await this.ds.query(
        'UPDATE payment_orders SET subscription_canceled_at = now(), updated_at = now() WHERE id = $1 AND subscription_canceled_at IS NULL',
        [root.id],
      );
    } catch (err) {
      this.log.warn(
        { orderId: root.id, err: (err as Error).message },
        'refunded subscription could not be canceled: its next renewal may still be charged',
      );
    }
  }

  /** Refund requests still open (for the periodic sweep after a crash). */
  async openRequests(limit = 50): Promise<number[]> {
    const rows = await this.ds.query<{ id: number }[]>(
      `SELECT id FROM payment_orders WHERE status = 'fulfilled' AND refund_requested_at IS NOT NULL ORDER BY refund_requested_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }
}
