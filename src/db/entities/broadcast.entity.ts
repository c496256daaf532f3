import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/**
 * An operator's message to the bot's users of a segment. `total` is the recipients chosen when it was made (one
 * `broadcast_recipients` row each); what was sent, failed or found blocked is counted from those rows.
 */
@Entity('broadcasts')
@Check('broadcasts_status', `"status" IN ('queued', 'sending', 'done', 'canceled')`)
@Index('broadcasts_open_idx', ['id'], { where: `"status" IN ('queued', 'sending')` })
export class BroadcastEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text' })
  text: string;

  /** `{plans?, language?, active_days?}` as the operator gave it. */
  @Column({ type: 'jsonb' })
  segment: Record<string, unknown>;

  @Column({ type: 'text', default: 'queued' })
  status: 'queued' | 'sending' | 'done' | 'canceled';

  @Column({ type: 'integer' })
  total: number;

  @Column({ name: 'created_by', type: 'integer', nullable: true })
  createdBy: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by' })
  creator?: UserEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
