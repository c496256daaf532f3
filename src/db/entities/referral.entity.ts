import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/**
 * An account that joined through another's invitation: one row per invitee (tied once, never again). The bonuses
 * are credited at the invitee's first payment, in the fulfilment's transaction, and recorded here with it.
 */
@Entity('referrals')
@Index('referrals_inviter_idx', ['inviterId'])
export class ReferralEntity {
  @PrimaryColumn({ name: 'invitee_id', type: 'integer' })
  inviteeId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'invitee_id' })
  invitee?: UserEntity;

  /** Null once the inviter's account was deleted: the invitee stays tied (never to another). */
  @Column({ name: 'inviter_id', type: 'integer', nullable: true })
  inviterId: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'inviter_id' })
  inviter?: UserEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** The invitee's first payment: the bonuses were credited then (once). */
  @Column({ name: 'rewarded_at', type: 'timestamptz', nullable: true })
  rewardedAt: Date | null;

  /** The order of that first payment. */
  @Column({ name: 'reward_order_id', type: 'integer', nullable: true })
  rewardOrderId: number | null;

  /** Bonus tokens credited to the inviter and to the invitee then (0 when that bonus was off). */
  @Column({ name: 'inviter_bonus', type: 'integer', default: 0 })
  inviterBonus: number;

  @Column({ name: 'invitee_bonus', type: 'integer', default: 0 })
  inviteeBonus: number;
}
