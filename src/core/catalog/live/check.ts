// catalog:check and the daily job: ask every vendor about every catalog model and classify it.
import type { VendorLookup } from '../../providers/adapter';
import { providerAdapters } from '../../providers/registry';
import type { ProviderConnection, ProviderName } from '../../providers/types';
import { lifecycleOf, type VendorStatus } from '../lifecycle';
import { MODELS } from '../models';
import type { StoredFinding } from './store';

/** One line of the report (`catalog:check` prints them). */
export interface CheckedModel {
  slug: string;
  provider: ProviderName;
  upstream_id: string;
  status: VendorStatus;
  shutdown_at: string | null;
  replacement: string | null;
}

export interface CatalogReport {
  checked_at: string;
  models: CheckedModel[];
}

/** Where the vendors are reached: live credentials, else the sandbox; undefined when neither is configured. */
export type ConnectionFor = (provider: ProviderName, slug: string) => ProviderConnection | undefined;

/** Each provider's connection, or undefined when it has neither credentials nor a sandbox. */
export function connectionsFor(connections: { connection(provider: ProviderName, slug: string): ProviderConnection }): ConnectionFor {
  return (provider, slug) => {
    try {
      return connections.connection(provider, slug);
    } catch {
      return undefined;
    }
  };
}

/**
 * `live` (listed), `deprecated` (listed with an announced shutdown date), `gone` (the vendor no longer lists it),
 * `unchecked` (the vendor has no list, is not configured, or could not be asked).
 */
export async function checkCatalog(
  connectionFor: ConnectionFor,
  now = new Date(),
): Promise<{ report: CatalogReport; findings: StoredFinding[] }> {
  const lookups = new Map<ProviderName, VendorLookup | null>();
  const failed = new Set<ProviderName>();
  const models: CheckedModel[] = [];
  const findings: StoredFinding[] = [];
  for (const m of MODELS) {
    if (!lookups.has(m.provider)) {
      const conn = connectionFor(m.provider, m.slug);
      lookups.set(m.provider, conn ? (providerAdapters[m.provider].models?.lookup(conn) ?? null) : null);
    }
    const lookup = lookups.get(m.provider);
    let status: VendorStatus = 'unchecked';
    let vendorShutdown: string | null = null;
    if (lookup && !failed.has(m.provider)) {
      try {
        const listed = await lookup(m.upstreamModel);
        status = listed === null ? 'gone' : listed.shutdownAt ? 'deprecated' : 'live';
        vendorShutdown = listed?.shutdownAt ?? null;
      } catch {
        failed.add(m.provider);
      }
    }
    const own = lifecycleOf(m.slug)!;
    models.push({
      slug: m.slug,
      provider: m.provider,
      upstream_id: m.upstreamModel,
      status,
      shutdown_at: vendorShutdown ?? own.shutdownAt,
      replacement: own.replacement,
    });
    findings.push({ slug: m.slug, provider: m.provider, upstreamId: m.upstreamModel, status, shutdownAt: vendorShutdown, checkedAt: now });
  }
  return { report: { checked_at: now.toISOString(), models }, findings };
}

/** A model whose vendor status or announced shutdown differs from the last check's. */
export interface CatalogChange {
  slug: string;
  before: VendorStatus | null;
  status: VendorStatus;
  shutdownAt: string | null;
  replacement: string | null;
}

/** What changed since the stored findings; a first `live` or `unchecked` is no news. */
export function changesSince(
  previous: readonly StoredFinding[],
  report: CatalogReport,
  findings: readonly StoredFinding[],
): CatalogChange[] {
  const before = new Map(previous.map((f) => [f.slug, f]));
  return findings.flatMap((f) => {
    const old = before.get(f.slug);
    const same = old ? old.status === f.status && old.shutdownAt === f.shutdownAt : f.status === 'live' || f.status === 'unchecked';
    if (same) return [];
    const line = report.models.find((m) => m.slug === f.slug)!;
    return [{ slug: f.slug, before: old?.status ?? null, status: f.status, shutdownAt: f.shutdownAt, replacement: line.replacement }];
  });
}
