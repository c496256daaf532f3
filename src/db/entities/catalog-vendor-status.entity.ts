import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** What the vendor's model list said about one catalog model at the last check (`catalog:check`). */
@Entity('catalog_vendor_status')
@Check('catalog_vendor_status_status', `"status" IN ('live', 'deprecated', 'gone', 'unchecked')`)
export class CatalogVendorStatusEntity {
  @PrimaryColumn({ type: 'text' })
  slug: string;

  @Column({ type: 'text' })
  provider: string;

  @Column({ name: 'upstream_id', type: 'text' })
  upstreamId: string;

  @Column({ type: 'text' })
  status: 'live' | 'deprecated' | 'gone' | 'unchecked';

  /** `YYYY-MM-DD` the vendor announced, if any. */
  @Column({ name: 'shutdown_at', type: 'date', nullable: true })
  shutdownAt: string | null;

  @Column({ name: 'checked_at', type: 'timestamptz' })
  checkedAt: Date;

  /** The first check whose list left the model out, while it still does (see catalog/live/check.ts). */
  @Column({ name: 'missing_since', type: 'timestamptz', nullable: true })
  missingSince: Date | null;

  /** When a real request was answered "model not found" (the admins were told; it retires nothing). */
  @Column({ name: 'suspect_since', type: 'timestamptz', nullable: true })
  suspectSince: Date | null;
}
