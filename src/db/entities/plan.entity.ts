import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('plans')
export class PlanEntity {
  @PrimaryColumn({ type: 'text' })
  slug: string;

  @Column({ type: 'text' })
  name: string;

  /** free 0, basic 1, pro 2, vip 3, elite 4. API keys need level >= 3. */
  @Column({ type: 'integer', unique: true })
  level: number;

  @Column({ name: 'monthly_tokens', type: 'integer' })
  monthlyTokens: number;

  /** 0 means unlimited. */
  @Column({ name: 'rate_limit_hourly', type: 'integer' })
  rateLimitHourly: number;

  @Column({ name: 'rate_limit_daily', type: 'integer' })
  rateLimitDaily: number;

  /** null means results are kept forever. */
  @Column({ name: 'retention_days', type: 'integer', nullable: true })
  retentionDays: number | null;

  @Column({ name: 'price_rub', type: 'integer', default: 0 })
  priceRub: number;
}
