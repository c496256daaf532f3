import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { UserEntity } from './user.entity';

export type ReservationStatus = 'reserved' | 'settled' | 'released';

/** Tokens held for one piece of work. Moves reserved -> settled | released exactly once. */
@Check('token_reservations_amounts', `"plan_amount" >= 0 AND "bonus_amount" >= 0`)
@Entity('token_reservations')
// Built CONCURRENTLY by migration 1764480000000: not synchronized.
@Index('token_reservations_open_idx', { synchronize: false })
@Index('token_reservations_closed_idx', { synchronize: false })
export class ReservationEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'text', unique: true })
  reference: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ name: 'plan_amount', type: 'integer' })
  planAmount: number;

  @Column({ name: 'bonus_amount', type: 'integer' })
  bonusAmount: number;

  @Column({ type: 'text', default: 'reserved' })
  status: ReservationStatus;

  /** Tokens finally charged (set when settled; 0 when released). */
  @Column({ type: 'integer', nullable: true })
  charged: number | null;

  /** The API key whose budget counter the hold went to (settlement gives the unused part back to it). */
  @Column({ name: 'api_key_id', type: 'integer', nullable: true })
  apiKeyId: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
