// catalog:check and the daily job: ask every vendor about every catalog model and classify it, without ever retiring
// a model on missing data.
//
// - A list that fails, is empty, or finds fewer than half of the vendor's catalog models it documents (a partial list)
//   leaves every model of that vendor as it was: `unchecked` this time, nothing stored changes.
// - A model is found by its id, or by a dated snapshot of it on the list (Anthropic lists `claude-haiku-4-5-20251001`
//   for the alias `claude-haiku-4-5`; xAI `grok-4.20-0309-non-reasoning` for `grok-4.20-non-reasoning`), or, when the
//   list leaves it out, by the vendor's own "retrieve a model".
// - A model the list leaves out is `gone` only when a check at least 24 hours after the first miss leaves it out too
//   and the vendor's direct lookup answers not found. The first miss tells the admins (before anything is retired);
//   a vendor that documents no direct lookup never has a model found gone (the admins decide: `catalog:set`).
import type { ModelListing, VendorModel, VendorModels } from '../../providers/adapter';
import { providerAdapters } from '../../providers/registry';
import type { ProviderConnection, ProviderName } from '../../providers/types';
import { lifecycleOf, type VendorStatus } from '../lifecycle';
import { MODELS } from '../models';
import type { ModelDefinition } from '../types';
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

/** A model whose vendor status changed, or that the vendor's list first left out (`missing`: the admins' warning). */
export interface CatalogChange {
  slug: string;
  before: VendorStatus | null;
  status: VendorStatus | 'missing' | 'suspect';
  shutdownAt: string | null;
  replacement: string | null;
}

/** How long a model must stay off its vendor's list before a direct not-found may retire it. */
export const MISSING_FOR_MS = 24 * 3600_000;

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

/** One vendor's documented ways to be asked, bound to a connection. */
export interface VendorAccess {
  list: (() => Promise<VendorModels>) | null;
  retrieve: ((id: string) => Promise<VendorModel | null>) | null;
  categories?: ModelListing['categories'];
}

export type AccessFor = (provider: ProviderName) => VendorAccess | undefined;

/** The vendors as their definitions declare them, over the connections; undefined for those with nothing to ask. */
export function vendorAccess(connectionFor: ConnectionFor): AccessFor {
  return (provider) => {
    const listing = providerAdapters[provider].models;
    const first = MODELS.find((m) => m.provider === provider);
    const conn = listing && first ? connectionFor(provider, first.slug) : undefined;
    if (!listing || !conn) return undefined;
    const { list, retrieve } = listing;
    return {
      list: list && (() => list(conn)),
      retrieve: retrieve && ((id) => retrieve(conn, id)),
      categories: listing.categories,
    };
  };
}

// A snapshot date: -20251001, -2026-09-29, or an -MMDD release tag (xAI's 0309).
const SNAPSHOT = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?=-|$)/g;

/** The entry of `listed` that is `id` or a dated snapshot of it. */
export function findListed(id: string, listed: VendorModels): { shutdownAt: string | null } | undefined {
  const exact = listed.get(id);
  if (exact) return exact;
  for (const [listedId, entry] of listed) {
    if (listedId.replace(SNAPSHOT, '') === id) return entry;
  }
  return undefined;
}

/** What one check learned of one model. */
type Outcome = { kind: 'found'; shutdownAt: string | null } | { kind: 'missing'; notFound: boolean } | { kind: 'unchecked' };

async function tryRetrieve(access: VendorAccess, id: string): Promise<Outcome | 'failed'> {
  if (!access.retrieve) return { kind: 'missing', notFound: false };
  try {
    const model = await access.retrieve(id);
    return model ? { kind: 'found', shutdownAt: model.shutdownAt } : { kind: 'missing', notFound: true };
  } catch {
    return 'failed';
  }
}

/** What the vendor says of each of its catalog models it documents (the others are left out: unchecked). */
async function askVendor(access: VendorAccess, models: readonly ModelDefinition[]): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  const unchecked = () => new Map(models.map((m) => [m.slug, { kind: 'unchecked' } as Outcome]));
  if (access.list) {
    let listed: VendorModels;
    try {
      listed = await access.list();
    } catch {
      return unchecked();
    }
    const found = models.filter((m) => findListed(m.upstreamModel, listed));
    if (listed.size === 0 || found.length * 2 < models.length) return unchecked();
    for (const m of models) {
      const entry = findListed(m.upstreamModel, listed);
      if (entry) out.set(m.slug, { kind: 'found', shutdownAt: entry.shutdownAt });
      else {
        const asked = await tryRetrieve(access, m.upstreamModel);
        out.set(m.slug, asked === 'failed' ? { kind: 'missing', notFound: false } : asked);
      }
    }
    return out;
  }
  // Asked one model at a time (Replicate): a vendor that fails or misses more than half of them is not believed.
  for (const m of models) {
    const asked = await tryRetrieve(access, m.upstreamModel);
    if (asked === 'failed') return unchecked();
    out.set(m.slug, asked);
  }
  const found = [...out.values()].filter((o) => o.kind === 'found').length;
  return found * 2 < models.length ? unchecked() : out;
}

export interface CheckResult {
  report: CatalogReport;
  /** What to store: a model not checked this time keeps what it had. */
  findings: StoredFinding[];
  /** The models the vendors confirmed (their suspect marks are cleared). */
  found: string[];
  changes: CatalogChange[];
}

/**
 * Every catalog model's status this time (`live`, `deprecated`: a shutdown date is announced, `gone`, `unchecked`),
 * from the vendors' answers and the stored findings of earlier checks.
 */
export async function checkCatalog(access: AccessFor, previous: readonly StoredFinding[], now = new Date()): Promise<CheckResult> {
  const before = new Map(previous.map((f) => [f.slug, f]));
  const outcomes = new Map<string, Outcome>();
  for (const provider of new Set(MODELS.map((m) => m.provider))) {
    const vendor = access(provider);
    const models = MODELS.filter((m) => m.provider === provider);
    const documented = vendor ? models.filter((m) => !vendor.categories || vendor.categories.includes(m.category)) : [];
    const answers = vendor && documented.length > 0 ? await askVendor(vendor, documented) : new Map<string, Outcome>();
    for (const m of models) outcomes.set(m.slug, answers.get(m.slug) ?? { kind: 'unchecked' });
  }

  const result: CheckResult = { report: { checked_at: now.toISOString(), models: [] }, findings: [], found: [], changes: [] };
  for (const m of MODELS) {
    const prev = before.get(m.slug);
    const known = prev && prev.status !== 'unchecked' ? prev.status : null;
    const base: StoredFinding = prev ?? {
      slug: m.slug,
      provider: m.provider,
      upstreamId: m.upstreamModel,
      status: 'unchecked',
      shutdownAt: null,
      checkedAt: now,
      missingSince: null,
      suspectSince: null,
    };
    const outcome = outcomes.get(m.slug)!;
    let status: VendorStatus = 'unchecked';
    let stored = base;
    let change: CatalogChange['status'] | null = null;
    if (outcome.kind === 'found') {
      status = outcome.shutdownAt ? 'deprecated' : 'live';
      stored = { ...base, upstreamId: m.upstreamModel, status, shutdownAt: outcome.shutdownAt, checkedAt: now, missingSince: null };
      result.found.push(m.slug);
      const news = known !== null ? known !== status || base.shutdownAt !== outcome.shutdownAt : status !== 'live';
      // A model the admins were warned about is back on the list: that is news too.
      if (news || base.missingSince !== null) change = status;
    } else if (outcome.kind === 'missing') {
      if (known === 'gone') {
        status = 'gone';
        stored = { ...base, checkedAt: now };
      } else if (base.missingSince === null) {
        stored = { ...base, missingSince: now };
        change = 'missing';
      } else if (outcome.notFound && now.getTime() - base.missingSince.getTime() >= MISSING_FOR_MS) {
        status = 'gone';
        stored = { ...base, status, checkedAt: now };
        change = 'gone';
      }
    }
    const own = lifecycleOf(m.slug)!;
    const vendorShutdown = outcome.kind === 'found' ? outcome.shutdownAt : null;
    result.report.models.push({
      slug: m.slug,
      provider: m.provider,
      upstream_id: m.upstreamModel,
      status,
      shutdown_at: vendorShutdown ?? own.shutdownAt,
      replacement: own.replacement,
    });
    result.findings.push(stored);
    if (change !== null) {
      result.changes.push({ slug: m.slug, before: known, status: change, shutdownAt: stored.shutdownAt, replacement: own.replacement });
    }
  }
  return result;
}
