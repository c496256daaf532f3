import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { ArticleEntity } from './article.entity';
import { UserEntity } from './user.entity';

export type OrderStatus = 'pending' | 'paid' | 'fulfilled' | 'canceled' | 'expired' | 'refund_pending' | 'refunded';
export type PaymentProviderName = 'stars' | 'yookassa';

/**
 * One purchase: pending -> paid -> fulfilled, pending -> canceled | expired, fulfilled -> refunded (or
 * fulfilled -> refund_pending -> refunded | back to fulfilled, when the provider answers a refund `pending`). The article is
 * copied in (tokens, plan, period, price) so later edits of the article do not change what was sold.
 */
@Entity('payment_orders')
@Unique('UQ_payment_orders_reference', ['reference'])
@Index('payment_orders_user_idx', ['userId', 'id'])
@Index('payment_orders_pending_idx', ['status', 'expiresAt'])
@Index('payment_orders_charge_idx', ['provider', 'providerChargeId'], { unique: true, where: '"provider_charge_id" IS NOT NULL' })
@Index('payment_orders_payment_idx', ['provider', 'providerPaymentId'], { unique: true, where: '"provider_payment_id" IS NOT NULL' })
// The revenue report's range of paid orders (migration 1764474000000, INCLUDE columns): not synchronized.
@Index('payment_orders_paid_at_idx', { synchronize: false })
@Check('payment_orders_status', `"status" IN ('pending', 'paid', 'fulfilled', 'canceled', 'expired', 'refund_pending', 'refunded')`)
export class PaymentOrderEntity {
  @PrimaryGeneratedColumn({ type: 'integer', primaryKeyConstraintName: 'PK_payment_orders' })
  id: number;

  /** `ord_…`: the Telegram invoice payload and the carrier payment's metadata. */
  @Column({ type: 'text' })
  reference: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_payment_orders_user' })
  user?: UserEntity;

  @Column({ name: 'article_id', type: 'text' })
  articleId: string;

  @ManyToOne(() => ArticleEntity)
  @JoinColumn({ name: 'article_id', foreignKeyConstraintName: 'FK_payment_orders_article' })
  article?: ArticleEntity;

  @Column({ type: 'text' })
  kind: 'tokens' | 'plan';

  @Column({ type: 'integer', nullable: true })
  tokens: number | null;

  @Column({ name: 'plan_slug', type: 'text', nullable: true })
  planSlug: string | null;

  @Column({ name: 'period_days', type: 'integer', nullable: true })
  periodDays: number | null;

  @Column({ type: 'text' })
  provider: PaymentProviderName;

  /** Minor units of `currency` (kopecks for RUB; whole Stars for XTR). */
  @Column({ name: 'amount_minor', type: 'integer' })
  amountMinor: number;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'text', default: 'pending' })
  status: OrderStatus;

  /** The provider's payment object (YooKassa payment id). */
  @Column({ name: 'provider_payment_id', type: 'text', nullable: true })
  providerPaymentId: string | null;

  /** The charge that paid the order (telegram_payment_charge_id, or the YooKassa payment id). */
  @Column({ name: 'provider_charge_id', type: 'text', nullable: true })
  providerChargeId: string | null;

  /** A subscription renewal points at the order that started the subscription. */
  @Column({ name: 'parent_order_id', type: 'integer', nullable: true })
  parentOrderId: number | null;

  @Column({ name: 'is_subscription', type: 'boolean', default: false })
  isSubscription: boolean;

  @Column({ name: 'subscription_canceled_at', type: 'timestamptz', nullable: true })
  subscriptionCanceledAt: Date | null;

  @Column({ name: 'save_payment_method', type: 'boolean', default: false })
  savePaymentMethod: boolean;

  @Column({ name: 'confirmation_url', type: 'text', nullable: true })
  confirmationUrl: string | null;

  @Column({ name: 'refund_requested_at', type: 'timestamptz', nullable: true })
  refundRequestedAt: Date | null;

  /** The provider's refund id while a refund is followed up (`refund_pending`). */
  @Column({ name: 'provider_refund_id', type: 'text', nullable: true })
  providerRefundId: string | null;

  @Column({ name: 'refund_tokens_taken', type: 'integer', nullable: true })
  refundTokensTaken: number | null;

  @Column({ name: 'refund_tokens_spent', type: 'integer', nullable: true })
  refundTokensSpent: number | null;

  @Column({ name: 'refund_error', type: 'text', nullable: true })
  refundError: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'paid_at', type: 'timestamptz', nullable: true })
  paidAt: Date | null;

  @Column({ name: 'fulfilled_at', type: 'timestamptz', nullable: true })
  fulfilledAt: Date | null;

  @Column({ name: 'canceled_at', type: 'timestamptz', nullable: true })
  canceledAt: Date | null;

  @Column({ name: 'refunded_at', type: 'timestamptz', nullable: true })
  refundedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
