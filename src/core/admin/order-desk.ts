// The operator's orders: every account's orders, filtered, and a refund by order id with the bot's rules.
import type { DataSource } from 'typeorm';
import { PaymentOrderEntity, type OrderStatus } from '../../db/entities';
import { decodeCursor, encodeCursor } from '../stats/history';
import { OrderNotFoundError, OrderNotRefundableError, UnknownChargeError } from '../payments/errors';
import type { OrderRecord } from '../payments/orders';
import type { RefundDesk, RefundResult } from '../payments/refund-desk';
import type { AdminActor, AdminAuditLog } from './audit-log';

type AuditRecorder = Pick<AdminAuditLog, 'record'>;

export interface OrderFilter {
  status?: OrderStatus;
  userId?: number;
  cursor?: string;
  limit: number;
}

export interface OrderPage {
  orders: OrderRecord[];
  nextCursor: string | null;
}

export interface AdminRefund {
  result: RefundResult;
  order: OrderRecord;
}

/** Refund outcomes after which the order is no longer what it was: each one is an admin action in the audit log. */
const ACTED = new Set<RefundResult['state']>(['refunded', 'queued', 'pending', 'canceled']);

export class AdminOrderDesk {
  constructor(
    private readonly ds: DataSource,
    private readonly refunds: RefundDesk,
    private readonly audit: AuditRecorder,
  ) {}

  /** Newest first. @throws ParamError (a bad cursor) */
  async list(filter: OrderFilter): Promise<OrderPage> {
    const qb = this.ds
      .getRepository(PaymentOrderEntity)
      .createQueryBuilder('o')
      .orderBy('o.id', 'DESC')
      .take(filter.limit + 1);
    if (filter.status) qb.andWhere('o.status = :status', { status: filter.status });
    if (filter.userId !== undefined) qb.andWhere('o.user_id = :userId', { userId: filter.userId });
    if (filter.cursor) qb.andWhere('o.id < :before', { before: decodeCursor(filter.cursor) });
    const rows = await qb.getMany();
    const page = rows.slice(0, filter.limit);
    return { orders: page, nextCursor: rows.length > filter.limit ? encodeCursor(page[page.length - 1]!.id) : null };
  }

  /**
   * Refunds the order's charge at its provider and reverses what is left of its credit, exactly as the bot's
   * `/admin refund`. Single-shot: a refunded order answers `already_refunded` and changes nothing.
   * @throws OrderNotFoundError, OrderNotRefundableError
   */
  async refund(orderId: number, actor: AdminActor): Promise<AdminRefund> {
    const before = await this.ds.getRepository(PaymentOrderEntity).findOneBy({ id: orderId });
    if (!before) throw new OrderNotFoundError();
    if (!before.providerChargeId) throw new OrderNotRefundableError(before.status);
    return this.refundOrder(before, actor);
  }

  /** The bot's `/admin refund <charge id>`: the same refund, found by the provider's charge id. @throws UnknownChargeError, OrderNotRefundableError */
  async refundCharge(chargeId: string, actor: AdminActor): Promise<AdminRefund> {
    const before = await this.ds.getRepository(PaymentOrderEntity).findOneBy({ providerChargeId: chargeId.trim() });
    if (!before) throw new UnknownChargeError(chargeId);
    return this.refundOrder(before, actor);
  }

  private async refundOrder(before: OrderRecord, actor: AdminActor): Promise<AdminRefund> {
    const result = await this.refunds.request(before.providerChargeId!);
    const order = await this.ds.getRepository(PaymentOrderEntity).findOneByOrFail({ id: before.id });
    if (ACTED.has(result.state)) {
      await this.audit.record({
        actor,
        action: 'order.refund',
        target: { type: 'order', id: before.id },
        before: { status: before.status },
        after: {
          status: order.status,
          refund: result.state,
          tokens_taken: result.reversal?.tokensTaken ?? null,
          tokens_spent: result.reversal?.tokensSpent ?? null,
          ...(result.error ? { error: result.error } : {}),
        },
      });
    }
    return { result, order };
  }
}
