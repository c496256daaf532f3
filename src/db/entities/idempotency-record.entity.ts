import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/** An `Idempotency-Key` seen for one account, kept 24 h. */
@Entity('idempotency_records')
export class IdempotencyRecordEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @PrimaryColumn({ type: 'text' })
  key: string;

  /** sha256 of the route and the canonical request body. */
  @Column({ name: 'request_hash', type: 'text' })
  requestHash: string;

  /** `failed`: the attempt failed after opening generations; the key answers with them until all of them failed. */
  @Column({ type: 'text', default: 'running' })
  state: 'running' | 'done' | 'failed';

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody: unknown;

  /** The instance running the attempt (null once done). */
  @Column({ name: 'instance_id', type: 'text', nullable: true })
  instanceId: string | null;

  /** The running attempt (a late release of an earlier attempt never touches a later one). */
  @Column({ name: 'attempt_id', type: 'text', nullable: true })
  attemptId: string | null;

  /** The generations the attempt opened (before any vendor call): what a retry after a failed attempt answers with. */
  @Column({ name: 'generation_ids', type: 'integer', array: true, nullable: true })
  generationIds: number[] | null;

  /** The running attempt's deadline: past it, a retry takes the key over. */
  @Column({ name: 'running_until', type: 'timestamptz', nullable: true })
  runningUntil: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
