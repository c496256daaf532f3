import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { BroadcastEntity } from './broadcast.entity';
import { UserEntity } from './user.entity';

/**
 * One user's copy of a broadcast: pending → sending (claimed, before the call to Telegram) → sent | failed | blocked,
 * or canceled. The claim is committed before the send, so a crash never sends twice: a claim left behind is failed
 * as `interrupted`, not sent again (at most once).
 */
@Entity('broadcast_recipients')
@Check('broadcast_recipients_status', `"status" IN ('pending', 'sending', 'sent', 'failed', 'blocked', 'canceled')`)
@Index('broadcast_recipients_status_idx', ['broadcastId', 'status'])
export class BroadcastRecipientEntity {
  @PrimaryColumn({ name: 'broadcast_id', type: 'integer' })
  broadcastId: number;

  @ManyToOne(() => BroadcastEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'broadcast_id' })
  broadcast?: BroadcastEntity;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ name: 'chat_id', type: 'bigint' })
  chatId: string;

  @Column({ type: 'text', default: 'pending' })
  status: 'pending' | 'sending' | 'sent' | 'failed' | 'blocked' | 'canceled';

  @Column({ name: 'claimed_at', type: 'timestamptz', nullable: true })
  claimedAt: Date | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
