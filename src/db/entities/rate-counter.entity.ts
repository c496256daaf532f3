import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Fixed-window request counters, used when Redis is not configured or not reachable. */
@Entity('rate_counters')
@Index('rate_counters_expires_idx', ['expiresAt'])
export class RateCounterEntity {
  @PrimaryColumn({ type: 'text' })
  key: string;

  @PrimaryColumn({ name: 'window_start', type: 'bigint' })
  windowStart: string;

  @Column({ type: 'integer', default: 0 })
  count: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
