import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/** The two token buckets. Changed only together with a ledger row, in one transaction. */
@Check('balances_non_negative', `"plan_tokens" >= 0 AND "bonus_tokens" >= 0`)
@Entity('balances')
export class BalanceEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ name: 'plan_tokens', type: 'integer', default: 0 })
  planTokens: number;

  @Column({ name: 'bonus_tokens', type: 'integer', default: 0 })
  bonusTokens: number;

  @Column({ name: 'tokens_used_this_period', type: 'integer', default: 0 })
  tokensUsedThisPeriod: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
