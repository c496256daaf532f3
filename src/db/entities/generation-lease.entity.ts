import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The instance running a generation in-process, and a stream's progress (see migration GenerationLeases). */
@Entity('generation_leases')
@Index('generation_leases_instance_idx', ['instanceId'])
export class GenerationLeaseEntity {
  @PrimaryColumn({ name: 'generation_id', type: 'integer' })
  generationId: number;

  @Column({ name: 'instance_id', type: 'text' })
  instanceId: string;

  @Column({ name: 'delivered_chars', type: 'integer', default: 0 })
  deliveredChars: number;

  @Column({ name: 'prompt_tokens', type: 'integer', default: 0 })
  promptTokens: number;

  @Column({ name: 'heartbeat_at', type: 'timestamptz', default: () => 'now()' })
  heartbeatAt: Date;
}
