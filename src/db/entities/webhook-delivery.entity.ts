import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

export type WebhookDeliveryState = 'pending' | 'succeeded' | 'failed';

/** One event on its way to one endpoint: the exact body and webhook-id every attempt sends. */
@Entity('webhook_deliveries')
@Index('webhook_deliveries_endpoint_idx', ['endpointId'])
@Index('webhook_deliveries_due_idx', ['nextAttemptAt'], { where: `"state" = 'pending'` })
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'endpoint_id', type: 'integer' })
  endpointId: number;

  @ManyToOne(() => WebhookEndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id' })
  endpoint?: WebhookEndpointEntity;

  /** The `webhook-id` header: the same on every retry. */
  @Column({ name: 'message_id', type: 'text' })
  messageId: string;

  @Column({ type: 'text' })
  event: string;

  /** The JSON body exactly as signed and sent. */
  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'text', default: 'pending' })
  state: WebhookDeliveryState;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt: Date;

  /** Set while an attempt is in flight, so a duplicate job on another instance does not send it again. */
  @Column({ name: 'lease_until', type: 'timestamptz', nullable: true })
  leaseUntil: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
