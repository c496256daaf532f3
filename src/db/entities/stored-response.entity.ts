import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/** A response of `/v1/responses` kept for its account (`store`): see migrations/1764340000000-StoredResponses.ts. */
@Entity('stored_responses')
@Index('stored_responses_user_idx', ['userId', 'createdAt'])
@Index('stored_responses_expiry_idx', ['expiresAt'], { where: 'expires_at IS NOT NULL' })
export class StoredResponseEntity {
  /** `resp_…`, as the client knows it. */
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  /** The key it was created with: a background response runs as that key (kept, not a reference: the key may go). */
  @Column({ name: 'api_key_id', type: 'integer', nullable: true })
  apiKeyId: number | null;

  /** queued, in_progress, completed, incomplete, failed or cancelled (the response object's own `status`). */
  @Column({ type: 'text' })
  status: string;

  @Column({ type: 'boolean', default: false })
  background: boolean;

  /** The response object as answered; reasoning items keep their encrypted content (shown only when asked). */
  @Column({ type: 'jsonb' })
  response: Record<string, unknown>;

  /** Every input item it was generated from, the stored chain's included, each with its id. */
  @Column({ name: 'input_items', type: 'jsonb' })
  inputItems: unknown[];

  /** A background response's request, until it has run. */
  @Column({ type: 'jsonb', nullable: true })
  request: Record<string, unknown> | null;

  @Column({ name: 'cancel_requested', type: 'boolean', default: false })
  cancelRequested: boolean;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  /** When the plan's retention ends (null: kept while the account is). */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;
}
