import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** An operator's change to one catalog slug (`catalog:set`); a null column keeps the catalog's own value. */
@Entity('catalog_overrides')
export class CatalogOverrideEntity {
  @PrimaryColumn({ type: 'text' })
  slug: string;

  @Column({ type: 'text', nullable: true })
  replacement: string | null;

  /** `YYYY-MM-DD`. */
  @Column({ name: 'shutdown_at', type: 'date', nullable: true })
  shutdownAt: string | null;

  @Column({ type: 'boolean', nullable: true })
  enabled: boolean | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
