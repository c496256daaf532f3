import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/**
 * One admin action (bot, dashboard or CLI): who, what, on what, and the state before and after. Append-only: the
 * code has no update or delete path, and a trigger refuses both (only the foreign key's SET NULL may touch a row).
 */
@Entity('admin_audit_log')
@Check('admin_audit_log_door', `"door" IN ('web', 'bot', 'cli')`)
@Index('admin_audit_log_created_idx', ['createdAt', 'id'])
@Index('admin_audit_log_target_idx', ['targetType', 'targetId', 'id'])
@Index('admin_audit_log_actor_idx', ['actorUserId', 'id'])
export class AdminAuditEntryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'actor_user_id', type: 'integer', nullable: true })
  actorUserId: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'actor_user_id' })
  actor?: UserEntity;

  /** How the actor is named at its door: `web:12`, `bot:12345`, `cli`. */
  @Column({ name: 'actor_label', type: 'text' })
  actorLabel: string;

  @Column({ type: 'text' })
  door: 'web' | 'bot' | 'cli';

  /** Dotted: `user.grant`, `user.plan`, `user.block`, `broadcast.create`, `catalog.update`, `order.refund`. */
  @Column({ type: 'text' })
  action: string;

  @Column({ name: 'target_type', type: 'text' })
  targetType: string;

  @Column({ name: 'target_id', type: 'text' })
  targetId: string;

  @Column({ type: 'jsonb', nullable: true })
  before: object | null;

  @Column({ type: 'jsonb', nullable: true })
  after: object | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
