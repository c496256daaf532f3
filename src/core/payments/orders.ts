import crypto from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { PaymentOrderEntity, type OrderStatus, type PaymentProviderName } from '../../db/entities';
import { type Article, majorAmount, STARS_CURRENCY } from './articles';
import { OrderNotFoundError } from './errors';

export type OrderRecord = PaymentOrderEntity;

/** Pending orders not paid within this time are expired by the expiry job. */
export const ORDER_TTL_MS = 24 * 3600_000;

/** The wire form of an order (GET /api/v2/payments/orders). */
export interface OrderView {
  id: number;
  reference: string;
  status: OrderStatus;
  article_id: string;
  kind: 'tokens' | 'plan';
  tokens: number | null;
  plan: string | null;
  period_days: number | null;
  amount: number;
  currency: string;
  provider: PaymentProviderName;
  confirmation_url: string | null;
  created_at: string;
  paid_at: string | null;
  fulfilled_at: string | null;
  refunded_at: string | null;
  refund: { tokens_taken: number; tokens_spent: number } | null;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function toOrderView(o: OrderRecord): OrderView {
  return {
    id: o.id,
    reference: o.reference,
    status: o.status,
    article_id: o.articleId,
    kind: o.kind,
    tokens: o.tokens,
    plan: o.planSlug,
    period_days: o.periodDays,
    amount: majorAmount(o.amountMinor, o.currency),
    currency: o.currency,
    provider: o.provider,
    confirmation_url: o.status === 'pending' ? o.confirmationUrl : null,
    created_at: new Date(o.createdAt).toISOString(),
    paid_at: iso(o.paidAt),
    fulfilled_at: iso(o.fulfilledAt),
    refunded_at: iso(o.refundedAt),
    refund: o.status === 'refunded' ? { tokens_taken: o.refundTokensTaken ?? 0, tokens_spent: o.refundTokensSpent ?? 0 } : null,
  };
}

export function newOrderReference(): string {
  return `ord_${crypto.randomBytes(12).toString('hex')}`;
}

export interface NewOrder {
  userId: number;
  article: Article;
  provider: PaymentProviderName;
  savePaymentMethod?: boolean;
  isSubscription?: boolean;
  parentOrderId?: number;
}

/** A pending order with the article copied in; Stars orders are priced in XTR, carrier orders in the article's currency. */
export async function createOrder(db: DataSource | EntityManager, input: NewOrder): Promise<OrderRecord> {
  const { article } = input;
  const stars = input.provider === 'stars';
  const repo = db.getRepository(PaymentOrderEntity);
  return repo.save(
    repo.create({
      reference: newOrderReference(),
      userId: input.userId,
      articleId: article.id,
      kind: article.kind,
      tokens: article.tokens,
      planSlug: article.plan,
      periodDays: article.periodDays,
      provider: input.provider,
      amountMinor: stars ? article.stars : article.priceMinor,
      currency: stars ? STARS_CURRENCY : article.currency,
      status: 'pending',
      isSubscription: input.isSubscription ?? false,
      parentOrderId: input.parentOrderId ?? null,
      savePaymentMethod: input.savePaymentMethod ?? false,
      expiresAt: new Date(Date.now() + ORDER_TTL_MS),
    }),
  );
}

/** A subscription renewal: a new pending order of the subscription's article at the price Telegram charged. */
export async function createRenewalOrder(
  db: DataSource | EntityManager,
  subscription: OrderRecord,
  amountMinor: number,
  currency: string,
): Promise<OrderRecord> {
  const repo = db.getRepository(PaymentOrderEntity);
  return repo.save(
    repo.create({
      reference: newOrderReference(),
      userId: subscription.userId,
      articleId: subscription.articleId,
      kind: subscription.kind,
      tokens: subscription.tokens,
      planSlug: subscription.planSlug,
      periodDays: subscription.periodDays,
      provider: subscription.provider,
      amountMinor,
      currency,
      status: 'pending',
      isSubscription: true,
      parentOrderId: subscription.parentOrderId ?? subscription.id,
      expiresAt: new Date(Date.now() + ORDER_TTL_MS),
    }),
  );
}

export async function findOrderByReference(ds: DataSource, reference: string): Promise<OrderRecord | null> {
  return ds.getRepository(PaymentOrderEntity).findOneBy({ reference });
}

export async function findOrderById(ds: DataSource, id: number): Promise<OrderRecord | null> {
  return ds.getRepository(PaymentOrderEntity).findOneBy({ id });
}

/** @throws OrderNotFoundError also for another user's order */
export async function requireUserOrder(ds: DataSource, userId: number, id: number): Promise<OrderRecord> {
  const order = await ds.getRepository(PaymentOrderEntity).findOneBy({ id, userId });
  if (!order) throw new OrderNotFoundError();
  return order;
}

export async function listUserOrders(ds: DataSource, userId: number, limit = 100): Promise<OrderRecord[]> {
  return ds.getRepository(PaymentOrderEntity).find({ where: { userId }, order: { id: 'DESC' }, take: limit });
}

/** pending -> canceled (single-shot). Returns false when the order was no longer pending. */
export async function cancelOrder(ds: DataSource, orderId: number): Promise<boolean> {
  const rows = await ds.query<unknown[]>(
    `WITH u AS (
       UPDATE payment_orders SET status = 'canceled', canceled_at = now(), updated_at = now() WHERE id = $1 AND status = 'pending' RETURNING id
     ) SELECT id FROM u`,
    [orderId],
  );
  return rows.length > 0;
}
