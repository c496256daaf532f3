import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/**
 * Calls of an account the service refused before doing anything (403 plan or key scope, 402 balance or key budget,
 * 429 limits), for its request log. The same refusal repeated within one flush is one row with a `count`.
 */
@Entity('refused_requests')
@Index('refused_requests_user_idx', ['userId', 'id'])
export class RefusedRequestEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  /** Where the call came in: `web` (a dashboard session), `api` (an API key) or `bot`. */
  @Column({ type: 'text' })
  door: string;

  /** The API key the call presented (kept after the key is deleted); null for a web session. */
  @Column({ name: 'api_key_id', type: 'integer', nullable: true })
  apiKeyId: number | null;

  /** `GET /api/v2/keys`, `POST /v1/chat/completions`: the method and the path without its query. */
  @Column({ type: 'text' })
  route: string;

  /** The model the call asked for, when its body named one. */
  @Column({ name: 'model_slug', type: 'text', nullable: true })
  modelSlug: string | null;

  @Column({ type: 'integer' })
  status: number;

  /** The error code of the answer (`insufficient_tokens`, `rate_limit_exceeded`...). */
  @Column({ type: 'text' })
  error: string;

  @Column({ type: 'text' })
  message: string;

  @Column({ type: 'integer', default: 1 })
  count: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  /** The last of the `count` refusals. */
  @Column({ name: 'last_at', type: 'timestamptz', default: () => 'now()' })
  lastAt: Date;
}
