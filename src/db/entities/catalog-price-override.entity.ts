import { Check, Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** An operator's price override of one catalog model (`catalog:price`): a factor on its rates, or its tokens. */
@Entity('catalog_price_overrides')
@Check('catalog_price_overrides_one', `(factor IS NULL) <> (tokens IS NULL)`)
@Check('catalog_price_overrides_factor', `factor IS NULL OR (factor > 0 AND factor <= 100)`)
@Check('catalog_price_overrides_tokens', `tokens IS NULL OR tokens >= 1`)
export class CatalogPriceOverrideEntity {
  @PrimaryColumn({ type: 'text' })
  slug: string;

  @Column({ type: 'double precision', nullable: true })
  factor: number | null;

  @Column({ type: 'integer', nullable: true })
  tokens: number | null;

  @Column({ type: 'text' })
  reason: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
