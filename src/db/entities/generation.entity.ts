import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

export type GenerationStatus = 'pending' | 'completed' | 'failed';
export type GenerationSource = 'api' | 'bot' | 'v1' | 'schedule';

@Entity('generations')
// (user_id, id) INCLUDE the history's filter columns: migration 1764540000000.
@Index('generations_user_history_idx', { synchronize: false })
@Index('generations_model_completed_idx', ['modelSlug', 'completedAt'])
@Index('generations_result_key_idx', ['resultKey'])
@Index('generations_api_key_idx', ['apiKeyId', 'createdAt'], { where: '"api_key_id" IS NOT NULL' })
@Index('generations_pending_deadline_idx', ['deadlineAt'], { where: `"status" = 'pending'` })
// Built CONCURRENTLY by migration 1764480000000 (one has INCLUDE columns TypeORM cannot express): not synchronized.
@Index('generations_user_usage_idx', { synchronize: false })
@Index('generations_user_status_idx', { synchronize: false })
// The revenue report's range of finished generations (migration 1764474000000, INCLUDE columns): not synchronized.
@Index('generations_completed_at_idx', { synchronize: false })
@Index('generations_retention_idx', { synchronize: false })
export class GenerationEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ name: 'model_slug', type: 'text' })
  modelSlug: string;

  @Column({ type: 'text' })
  category: string;

  @Column({ type: 'text' })
  status: GenerationStatus;

  @Column({ type: 'text', default: 'api' })
  source: GenerationSource;

  /** The API key that made the request (kept after the key is deleted, for the request log). */
  @Column({ name: 'api_key_id', type: 'integer', nullable: true })
  apiKeyId: number | null;

  @Column({ type: 'text', nullable: true })
  prompt: string | null;

  /** Normalised request parameters (what the worker needs to run it). */
  @Column({ type: 'jsonb', default: {} })
  params: Record<string, unknown>;

  @Column({ name: 'upstream_job_id', type: 'text', nullable: true })
  upstreamJobId: string | null;

  /** The vendor connection that accepted the upstream job (its id, never its key): polls go back to it. */
  @Column({ name: 'upstream_connection', type: 'text', nullable: true })
  upstreamConnection: string | null;

  @Column({ name: 'result_key', type: 'text', nullable: true })
  resultKey: string | null;

  @Column({ name: 'result_mime', type: 'text', nullable: true })
  resultMime: string | null;

  @Column({ name: 'result_text', type: 'text', nullable: true })
  resultText: string | null;

  @Column({ name: 'result_metadata', type: 'jsonb', nullable: true })
  resultMetadata: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'error_kind', type: 'text', nullable: true })
  errorKind: string | null;

  @Column({ name: 'tokens_reserved', type: 'integer', default: 0 })
  tokensReserved: number;

  @Column({ name: 'tokens_spent', type: 'integer', default: 0 })
  tokensSpent: number;

  /** What the vendor reported (or the request made): tokens of each kind, images, seconds, characters. */
  @Column({ name: 'vendor_usage', type: 'jsonb', nullable: true })
  vendorUsage: Record<string, number> | null;

  /** What that cost the operator at the vendor's list price, in US dollars (null: failed, or from before). */
  @Column({
    name: 'vendor_cost_usd',
    type: 'numeric',
    precision: 16,
    scale: 8,
    nullable: true,
    transformer: { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) },
  })
  vendorCostUsd: number | null;

  @Column({ name: 'processing_ms', type: 'integer', nullable: true })
  processingMs: number | null;

  @Column({ type: 'integer', nullable: true })
  seed: number | null;

  @Column({ name: 'eta_seconds', type: 'integer', nullable: true })
  etaSeconds: number | null;

  @Column({ name: 'duration_seconds', type: 'integer', nullable: true })
  durationSeconds: number | null;

  /** Where the bot should deliver the result (chat id, progress message id), when it came from the bot. */
  @Column({ type: 'jsonb', nullable: true })
  delivery: Record<string, unknown> | null;

  /** Origin of the request that created it, the base of its result link without PUBLIC_URL (core/links). */
  @Column({ name: 'link_origin', type: 'text', nullable: true })
  linkOrigin: string | null;

  @Column({ name: 'sandbox', type: 'boolean', default: false })
  sandbox: boolean;

  @Column({ name: 'deadline_at', type: 'timestamptz', nullable: true })
  deadlineAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  /** When the result file is deleted (null: never). */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'result_deleted_at', type: 'timestamptz', nullable: true })
  resultDeletedAt: Date | null;

  /** When its owner deleted it (DELETE /api/v2/generate/{id}): the result, prompt and text are gone, the row stays for the books. */
  @Column({ name: 'user_deleted_at', type: 'timestamptz', nullable: true })
  userDeletedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
