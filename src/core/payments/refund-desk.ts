import { DataSource } from 'typeorm';
import { PaymentOrderEntity, type PaymentProviderName } from '../../db/entities';
import type { Logger } from '../../logger';
import {
  OrderNotRefundableError,
  PaymentProviderRejectedError,
  PaymentProviderUnavailableError,
  ReceiptContactMissingError,
  UnknownChargeError,
} from './errors';
import type { OrderRecord } from './orders';
import type { PaymentHub, RefundBuyer, RefundGateway, RefundOutcome, RefundQueue } from './ports';
import { receiptFor, type ReceiptSettings } from './receipts';
import type { Reversal } from './refunds';
import type { PaymentSettlement } from './settlement';

/**
 * `pending`: the provider took the request but has not given the money back yet (the order is `refund_pending`,
 * followed up by the job); `canceled`: the provider declined it (the order stays fulfilled, nothing taken back).
 */
export type RefundState = 'refunded' | 'already_refunded' | 'queued' | 'pending' | 'canceled' | 'failed';

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
    private readonly hub: PaymentHub,
    private readonly log: Logger,
    private readonly receipts?: ReceiptSettings | null,
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
    if (order.status === 'refund_pending') return { state: 'pending', order };
    if (order.status !== 'fulfilled') throw new OrderNotRefundableError(order.status);
    await this.ds.query(
      'UPDATE payment_orders SET refund_requested_at = COALESCE(refund_requested_at, now()), updated_at = now() WHERE id = $1',
      [order.id],
    );
    await this.queue?.enqueue(order.id);
    return this.process(order.id);
  }

  /**
   * One attempt at a recorded refund request, or one follow-up of a refund the provider answered `pending`. The job
   * calls it with `rethrow` so that retryable failures (and a refund still pending) are retried with backoff; the
   * admin command gets `queued` / `pending` instead.
   */
  async process(orderId: number, options: { rethrow?: boolean } = {}): Promise<RefundResult> {
    const repo = this.ds.getRepository(PaymentOrderEntity);
    const order = await repo.findOneByOrFail({ id: orderId });
    if (order.status === 'refunded') return { state: 'already_refunded', order };
    const followUp = order.status === 'refund_pending';
    if (!followUp && (order.status !== 'fulfilled' || !order.refundRequestedAt))
      return { state: 'failed', order, error: `order is ${order.status}` };
    const gateway = this.gateways.get(order.provider);
    let outcome: RefundOutcome;
    try {
      if (!gateway) throw new PaymentProviderUnavailableError(order.provider, 'not connected in this process');
      if (followUp) {
        if (!gateway.refundStatus || !order.providerRefundId)
          throw new PaymentProviderRejectedError(order.provider, 'cannot follow a refund up');
        outcome = await gateway.refundStatus(order.providerRefundId);
      } else outcome = await gateway.refund(order, await this.buyer(order));
    } catch (err) {
      if ((err instanceof PaymentProviderRejectedError || err instanceof ReceiptContactMissingError) && !followUp) {
        await this.ds.query('UPDATE payment_orders SET refund_error = $2, refund_requested_at = NULL WHERE id = $1', [
          orderId,
          err.message.slice(0, 500),
        ]);
        this.log.warn({ orderId, err: err.message }, 'refund refused by the provider');
        return { state: 'failed', order: await repo.findOneByOrFail({ id: orderId }), error: err.message };
      }
      if (options.rethrow) throw err;
      this.log.warn({ orderId, err: (err as Error).message }, 'refund not done yet: retried by the job');
      return { state: followUp ? 'pending' : 'queued', order, error: (err as Error).message };
    }
    if (outcome.state === 'pending') return this.pending(order, outcome.refundId, options);
    if (outcome.state === 'canceled') return this.canceled(order, outcome.reason);
    if (outcome.state === 'already_refunded') this.log.info({ orderId }, 'provider says the charge was already refunded: counted as done');
    const reversal = await this.settlement.reverse(orderId);
    if (reversal.applied && order.isSubscription) await this.stopSubscription(order, gateway);
    return { state: reversal.applied ? 'refunded' : 'already_refunded', order: reversal.order, reversal };
  }

  /** fulfilled -> refund_pending (nothing taken back yet); the job follows the refund up until it resolves. */
  private async pending(order: OrderRecord, refundId: string, options: { rethrow?: boolean }): Promise<RefundResult> {
    await this.ds.query(
      `UPDATE payment_orders SET status = 'refund_pending', provider_refund_id = $2, updated_at = now()
        WHERE id = $1 AND status IN ('fulfilled', 'refund_pending')`,
      [order.id, refundId],
    );
    this.log.info({ orderId: order.id, refundId }, 'refund pending at the provider: followed up');
    // The job asks again later (with backoff; the sweep re-queues it after the job's retries run out).
    if (options.rethrow) throw new PaymentProviderUnavailableError(order.provider, `refund ${refundId} is still pending`);
    await this.queue?.enqueue(order.id);
    return { state: 'pending', order: await this.ds.getRepository(PaymentOrderEntity).findOneByOrFail({ id: order.id }) };
  }

  /** The provider declined the refund: the order is (again) fulfilled, nothing is taken back, the admins hear of it. */
  private async canceled(order: OrderRecord, reason: string): Promise<RefundResult> {
    const rows = await this.ds.query<{ id: number }[]>(
      `WITH u AS (
         UPDATE payment_orders SET status = 'fulfilled', refund_requested_at = NULL, provider_refund_id = NULL,
                refund_error = $2, updated_at = now()
          WHERE id = $1 AND status IN ('fulfilled', 'refund_pending') RETURNING id
       ) SELECT id FROM u`,
      [order.id, `refund canceled: ${reason}`.slice(0, 500)],
    );
    const current = await this.ds.getRepository(PaymentOrderEntity).findOneByOrFail({ id: order.id });
    if (rows.length > 0) {
      this.log.warn({ orderId: order.id, reason }, 'refund canceled by the provider: nothing taken back');
      await this.hub.refundCanceled({
        orderId: order.id,
        reference: order.reference,
        userId: order.userId,
        provider: order.provider,
        chargeId: order.providerChargeId ?? '',
        reason,
      });
    }
    return { state: 'canceled', order: current, error: reason };
  }

  /** The buyer as the provider needs them: the Telegram id (Stars), and the refund receipt when receipts are on (carrier). */
  private async buyer(order: OrderRecord): Promise<RefundBuyer> {
    const [row] = await this.ds.query<{ telegram_id: string | null; email: string | null; phone: string | null; title: string | null }[]>(
      'SELECT u.telegram_id, u.email, u.phone, a.title FROM users u LEFT JOIN articles a ON a.id = $2 WHERE u.id = $1',
      [order.userId, order.articleId],
    );
    const buyer: RefundBuyer = { telegramId: row?.telegram_id ?? null };
    if (this.receipts && order.provider !== 'stars') {
      buyer.receipt = receiptFor(
        { email: row?.email ?? null, phone: row?.phone ?? null },
        { title: row?.title ?? order.articleId, amountMinor: order.amountMinor, currency: order.currency },
        this.receipts,
      );
    }
    return buyer;
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
      `SELECT id FROM payment_orders
        WHERE (status = 'fulfilled' AND refund_requested_at IS NOT NULL) OR status = 'refund_pending'
        ORDER BY refund_requested_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }
}
