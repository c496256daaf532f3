import { DataSource, type EntityManager } from 'typeorm';
import { CatalogOverrideEntity, CatalogPriceOverrideEntity, CatalogVendorStatusEntity } from '../../../db/entities';
import type { OperatorPriceOverride } from '../effective-prices';
import type { CatalogOverride, VendorFinding, VendorStatus } from '../lifecycle';

/** One model's vendor finding as stored, with what was asked and when. */
export interface StoredFinding extends VendorFinding {
  provider: string;
  upstreamId: string;
  checkedAt: Date;
  /** The first check whose list left the model out, while it still does. */
  missingSince: Date | null;
  /** When a real request was answered "model not found" (cleared when a check finds the model). */
  suspectSince: Date | null;
}

/** The catalog's rows in PostgreSQL: operator overrides and the vendors' last answers. */
export class CatalogStore {
  constructor(private readonly ds: DataSource) {}

  async overrides(): Promise<CatalogOverride[]> {
    const rows = await this.ds.getRepository(CatalogOverrideEntity).find({ order: { slug: 'ASC' } });
    return rows.map((r) => ({ slug: r.slug, replacement: r.replacement, shutdownAt: r.shutdownAt, enabled: r.enabled }));
  }

  async priceOverrides(): Promise<OperatorPriceOverride[]> {
    const rows = await this.ds.getRepository(CatalogPriceOverrideEntity).find({ order: { slug: 'ASC' } });
    return rows.map((r) => ({
      slug: r.slug,
      reason: r.reason,
      ...(r.factor !== null ? { factor: r.factor } : {}),
      ...(r.tokens !== null ? { tokens: r.tokens } : {}),
    }));
  }

  /** Sets the slug's price override (a factor or tokens), replacing any it had. */
  /** `inside` runs in the change's transaction (the audit row). */
  async setPriceOverride(o: OperatorPriceOverride, inside?: (m: EntityManager) => Promise<void>): Promise<void> {
    await this.ds.transaction(async (m) => {
      await m
        .getRepository(CatalogPriceOverrideEntity)
        .upsert({ slug: o.slug, factor: o.factor ?? null, tokens: o.tokens ?? null, reason: o.reason, updatedAt: new Date() }, ['slug']);
      await inside?.(m);
    });
  }

  /** `inside` runs in the change's transaction (the audit row). */
  async clearPriceOverride(slug: string, inside?: (m: EntityManager) => Promise<void>): Promise<void> {
    await this.ds.transaction(async (m) => {
      await m.getRepository(CatalogPriceOverrideEntity).delete({ slug });
      await inside?.(m);
    });
  }

  async findings(): Promise<StoredFinding[]> {
    const rows = await this.ds.getRepository(CatalogVendorStatusEntity).find({ order: { slug: 'ASC' } });
    return rows.map((r) => ({
      slug: r.slug,
      provider: r.provider,
      upstreamId: r.upstreamId,
      status: r.status as VendorStatus,
      shutdownAt: r.shutdownAt,
      checkedAt: r.checkedAt,
      missingSince: r.missingSince,
      suspectSince: r.suspectSince,
    }));
  }

  /** Sets the given fields of the slug's override (the others keep their value); `inside` runs in its transaction. */
  async setOverride(
    slug: string,
    patch: Partial<Omit<CatalogOverride, 'slug'>>,
    inside?: (m: EntityManager) => Promise<void>,
  ): Promise<void> {
    const repo = this.ds.getRepository(CatalogOverrideEntity);
    await this.ds.transaction(async (m) => {
      await m.query(`INSERT INTO catalog_overrides (slug) VALUES ($1) ON CONFLICT (slug) DO NOTHING`, [slug]);
      const fields = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      if (Object.keys(fields).length > 0) await m.getRepository(repo.target).update({ slug }, fields);
      await inside?.(m);
    });
  }

  /**
   * Replaces the stored findings of the checked models, in one transaction (one change notice). Suspect marks are
   * cleared only for `found` (models a check found at the vendor), so a mark a request set meanwhile is not lost.
   */
  async saveFindings(findings: readonly StoredFinding[], found: readonly string[] = []): Promise<void> {
    if (findings.length === 0) return;
    await this.ds.transaction(async (m) => {
      await m.getRepository(CatalogVendorStatusEntity).upsert(
        findings.map((f) => ({
          slug: f.slug,
          provider: f.provider,
          upstreamId: f.upstreamId,
          status: f.status,
          shutdownAt: f.shutdownAt,
          checkedAt: f.checkedAt,
          missingSince: f.missingSince,
        })),
        ['slug'],
      );
      if (found.length > 0) {
        await m.query(`UPDATE catalog_vendor_status SET suspect_since = NULL WHERE slug = ANY($1) AND suspect_since IS NOT NULL`, [
          [...found],
        ]);
      }
    });
  }

  /** Marks a model suspect (a request was answered "model not found"); false when it already was. */
  async markSuspect(slug: string, provider: string, upstreamId: string, at: Date): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      `INSERT INTO catalog_vendor_status (slug, provider, upstream_id, status, checked_at, suspect_since)
       VALUES ($1, $2, $3, 'unchecked', $4, $4)
       ON CONFLICT (slug) DO UPDATE SET suspect_since = EXCLUDED.suspect_since WHERE catalog_vendor_status.suspect_since IS NULL
       RETURNING slug`,
      [slug, provider, upstreamId, at],
    );
    return rows.length > 0;
  }
}
