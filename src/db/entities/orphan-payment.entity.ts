import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { PaymentProviderName } from './payment-order.entity';

/**
 * A payment that fulfilled no order (its account deleted, its order canceled or unknown) and what became of it: the
 * books' record of money given back without an order, and what tells the admins once per payment.
 */
@Entity('orphan_payments')
export class OrphanPaymentEntity {
  @PrimaryColumn({ type: 'text' })
  provider: PaymentProviderName;

  /** The carrier's payment id, or Telegram's payment charge id. */
  @PrimaryColumn({ name: 'charge_id', type: 'text' })
  chargeId: string;

  @Column({ name: 'amount_minor', type: 'integer' })
  amountMinor: number;

  @Column({ type: 'text' })
  currency: string;

  /** The order reference the payment named, if any. */
  @Column({ type: 'text', nullable: true })
  reference: string | null;

  @Column({ type: 'text' })
  reason: string;

  /** refunded, refund_pending or refund_failed. */
  @Column({ type: 'text' })
  outcome: string;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
