import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { PlanEntity } from './plan.entity';

/** Something that can be bought: a token package (bonus tokens) or one period of a paid plan. Operators edit the rows. */
@Entity('articles')
@Check(
  'articles_kind',
  `("kind" = 'tokens' AND "tokens" > 0 AND "plan_slug" IS NULL AND "period_days" IS NULL) OR ("kind" = 'plan' AND "tokens" IS NULL AND "plan_slug" IS NOT NULL AND "period_days" > 0)`,
)
@Check('articles_prices', `"price_minor" > 0 AND "stars" > 0`)
export class ArticleEntity {
  /** A short slug such as `tokens-500` or `plan-pro-month`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_articles' })
  id: string;

  @Column({ type: 'text' })
  kind: 'tokens' | 'plan';

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'integer', nullable: true })
  tokens: number | null;

  @Column({ name: 'plan_slug', type: 'text', nullable: true })
  planSlug: string | null;

  @ManyToOne(() => PlanEntity)
  @JoinColumn({ name: 'plan_slug', foreignKeyConstraintName: 'FK_articles_plan' })
  plan?: PlanEntity;

  @Column({ name: 'period_days', type: 'integer', nullable: true })
  periodDays: number | null;

  /** Price in minor units of `currency` (kopecks). */
  @Column({ name: 'price_minor', type: 'integer' })
  priceMinor: number;

  @Column({ type: 'text', default: 'RUB' })
  currency: string;

  /** Price in Telegram Stars. */
  @Column({ type: 'integer' })
  stars: number;

  /** Inactive articles are not listed and cannot be bought. */
  @Column({ type: 'boolean', default: true })
  active: boolean;

  @Column({ type: 'integer', default: 0 })
  sort: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
