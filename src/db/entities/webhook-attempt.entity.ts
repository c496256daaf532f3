import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** One HTTP attempt of a delivery, as shown by GET /api/v2/webhooks/{id}/deliveries. */
@Entity('webhook_attempts')
@Index('webhook_attempts_endpoint_idx', ['endpointId', 'id'])
export class WebhookAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'delivery_id', type: 'integer' })
  deliveryId: number;

  @ManyToOne(() => WebhookDeliveryEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id' })
  delivery?: WebhookDeliveryEntity;

  @Column({ name: 'endpoint_id', type: 'integer' })
  endpointId: number;

  /** 1 for the first try. */
  @Column({ type: 'integer' })
  attempt: number;

  @Column({ type: 'boolean' })
  succeeded: boolean;

  /** The receiver's HTTP status; null when no answer came (refused, timeout, unreachable). */
  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** The first 1 KB of the answer. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  @Column({ name: 'latency_ms', type: 'integer' })
  latencyMs: number;

  @Column({ name: 'attempted_at', type: 'timestamptz', default: () => 'now()' })
  attemptedAt: Date;
}
