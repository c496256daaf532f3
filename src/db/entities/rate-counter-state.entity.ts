import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The one row that says which store the rate counters run on (`redis` or `postgres`), under which epoch, and (for
 * Redis) the server it was restored into. Every admission locks it (shared) and checks the epoch; a switch of
 * store takes it exclusively (see src/core/limits/counter-mode.ts).
 */
@Entity('rate_counter_state')
export class RateCounterStateEntity {
  @PrimaryColumn({ type: 'smallint' })
  id: number;

  @Column({ type: 'bigint', default: 0 })
  epoch: string;

  @Column({ type: 'text', default: 'postgres' })
  mode: string;

  @Column({ name: 'redis_run_id', type: 'text', nullable: true })
  redisRunId: string | null;

  @Column({ name: 'changed_at', type: 'timestamptz', default: () => 'now()' })
  changedAt: Date;
}
