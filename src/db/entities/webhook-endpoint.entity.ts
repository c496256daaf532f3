import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

export type WebhookEndpointStatus = 'active' | 'failing' | 'disabled';

/** A URL an account registered for event delivery. */
@Entity('webhook_endpoints')
@Index('webhook_endpoints_user_idx', ['userId'])
export class WebhookEndpointEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ type: 'text' })
  url: string;

  /** Event names this endpoint receives. */
  @Column({ type: 'text', array: true })
  events: string[];

  /** `whsec_` + base64 of the signing key; needed in clear to sign every delivery. */
  @Column({ type: 'text' })
  secret: string;

  /**
   * `failing` once a delivery exhausted its retries (the next successful delivery makes it `active` again);
   * `disabled` for good once the receiver answered 410 Gone (no further events or attempts).
   */
  @Column({ type: 'text', default: 'active' })
  status: WebhookEndpointStatus;

  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
