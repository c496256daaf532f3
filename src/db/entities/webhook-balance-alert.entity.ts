import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/** `balance.low` was announced for this account in the billing period that started at `periodStartedAt`. */
@Entity('webhook_balance_alerts')
export class WebhookBalanceAlertEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @PrimaryColumn({ name: 'period_started_at', type: 'timestamptz' })
  periodStartedAt: Date;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
