import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { UserEntity } from './user.entity';

/** A recurring generation: the same request run every `interval_minutes`. */
@Entity('schedules')
@Index('schedules_due_idx', ['enabled', 'nextRunAt'])
export class ScheduleEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  /** The API key it was created with: each run is a request of that key (budget, models, expiry) and goes with it. */
  @Index()
  @Column({ name: 'api_key_id', type: 'integer', nullable: true })
  apiKeyId: number | null;

  @ManyToOne(() => ApiKeyEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'api_key_id' })
  apiKey?: ApiKeyEntity;

  @Column({ type: 'text' })
  name: string;

  /** The versioned command it runs (core/schedules/scheduled-command.ts reads it). */
  @Column({ type: 'jsonb' })
  command: { version: number; request: unknown };

  @Column({ name: 'interval_minutes', type: 'integer' })
  intervalMinutes: number;

  @Column({ name: 'next_run_at', type: 'timestamptz' })
  nextRunAt: Date;

  @Column({ name: 'last_generation_id', type: 'integer', nullable: true })
  lastGenerationId: number | null;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ name: 'last_run_at', type: 'timestamptz', nullable: true })
  lastRunAt: Date | null;

  /** Why the last run did not start (insufficient tokens, plan, rate limit...), or null. */
  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
