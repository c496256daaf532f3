// When each model ends and what serves it afterwards: the catalog's own dates and replacements (models.ts), what the
// vendors said at the last check, and the operator's overrides, merged into one reading per slug.
import { ModelRetiredError, UnknownModelError } from './errors';
import { MODELS, RETIRED_ALIASES } from './models';
import type { Category, ModelDefinition, RetiredAlias } from './types';
import type { ProviderName } from '../providers/types';

/** An operator's change (`catalog:set`); a null field leaves the catalog's own value. */
export interface CatalogOverride {
  slug: string;
  replacement: string | null;
  shutdownAt: string | null;
  enabled: boolean | null;
}

export const VENDOR_STATUSES = ['live', 'deprecated', 'gone', 'unchecked'] as const;
export type VendorStatus = (typeof VENDOR_STATUSES)[number];

/** What the vendor's model list said at the last check (`catalog:check`). */
export interface VendorFinding {
  slug: string;
  status: VendorStatus;
  /** The shutdown date the vendor announced, if any. */
  shutdownAt: string | null;
}

/** The effective lifecycle of one slug. */
export interface Lifecycle {
  deprecatedAt: string | null;
  shutdownAt: string | null;
  replacement: string | null;
  /** false: the operator took the model out of service. */
  enabled: boolean;
  /** The vendor no longer lists the model. */
  gone: boolean;
}

/** A slug the catalog knows: a model it offers, or a retired alias kept for the clients still using it. */
export interface CatalogEntry {
  slug: string;
  name: string;
  category: Category;
  provider: ProviderName;
  upstreamModel: string;
  /** Undefined for a retired alias (it has no prices or options). */
  model?: ModelDefinition;
}

const MODEL_BY_SLUG: ReadonlyMap<string, ModelDefinition> = new Map(MODELS.map((m) => [m.slug, m]));
const ALIAS_BY_SLUG: ReadonlyMap<string, RetiredAlias> = new Map(RETIRED_ALIASES.map((a) => [a.slug, a]));

// This process's view of the database's overrides and findings, replaced whole whenever they change (any
// instance, any writer: see LiveCatalog). Until the first load, the catalog's own data holds.
let overrides: ReadonlyMap<string, CatalogOverride> = new Map();
let findings: ReadonlyMap<string, VendorFinding> = new Map();

export function applyCatalogState(state: { overrides: readonly CatalogOverride[]; findings: readonly VendorFinding[] }): void {
  overrides = new Map(state.overrides.map((o) => [o.slug, o]));
  findings = new Map(state.findings.map((f) => [f.slug, f]));
}

export function catalogEntry(slug: string): CatalogEntry | undefined {
  const model = MODEL_BY_SLUG.get(slug);
  if (model)
    return { slug, name: model.name, category: model.category, provider: model.provider, upstreamModel: model.upstreamModel, model };
  const alias = ALIAS_BY_SLUG.get(slug);
  return alias && { slug, name: alias.name, category: alias.category, provider: alias.provider, upstreamModel: alias.upstreamModel };
}

/** The reasoning effort a retired name implied (its replacement answers with it unless the request names one). */
export function aliasReasoningEffort(slug: string): RetiredAlias['reasoningEffort'] {
  return ALIAS_BY_SLUG.get(slug)?.reasoningEffort;
}

/** @throws UnknownModelError */
export function requireCatalogEntry(slug: string): CatalogEntry {
  const entry = catalogEntry(slug);
  if (!entry) throw new UnknownModelError(slug);
  return entry;
}

const earliest = (...dates: (string | null | undefined)[]): string | null =>
  dates.filter((d): d is string => typeof d === 'string').sort()[0] ?? null;

export function lifecycleOf(slug: string): Lifecycle | undefined {
  const own = MODEL_BY_SLUG.get(slug)?.lifecycle ?? ALIAS_BY_SLUG.get(slug)?.lifecycle;
  if (!own && !MODEL_BY_SLUG.has(slug)) return undefined;
  const override = overrides.get(slug);
  const finding = findings.get(slug);
  return {
    deprecatedAt: own?.deprecatedAt ?? null,
    shutdownAt: override?.shutdownAt ?? earliest(own?.shutdownAt, finding?.shutdownAt),
    replacement: override?.replacement ?? own?.replacement ?? null,
    enabled: override?.enabled ?? true,
    gone: finding?.status === 'gone',
  };
}

/** `YYYY-MM-DD` of `now` in UTC. */
export function isoDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** Past its shutdown day, gone from the vendor's list, taken out of service, or a retired alias. */
export function isRetired(slug: string, now = new Date()): boolean {
  if (ALIAS_BY_SLUG.has(slug)) return true;
  const l = lifecycleOf(slug);
  if (!l) return false;
  return !l.enabled || l.gone || (l.shutdownAt !== null && l.shutdownAt <= isoDay(now));
}

export interface ResolvedModel {
  model: ModelDefinition;
  /** The slug the client asked for, when a replacement serves it. */
  replacedFrom?: string;
  /** The requested model's shutdown day, when a replacement serves it. */
  shutdownAt?: string | null;
}

/**
 * The model that serves a request for `slug`: itself while it is in service, else its replacement (followed
 * while that one is retired too). Every door resolves through here.
 * @throws UnknownModelError, ModelRetiredError (retired without a replacement in service)
 */
export function resolveModel(slug: string, now = new Date()): ResolvedModel {
  const entry = catalogEntry(slug);
  if (!entry) throw new UnknownModelError(slug);
  if (!isRetired(slug, now)) return { model: entry.model! };
  const requested = lifecycleOf(slug)!;
  const seen = new Set([slug]);
  let current = requested.replacement;
  while (current !== null && !seen.has(current) && catalogEntry(current)) {
    if (!isRetired(current, now)) return { model: MODEL_BY_SLUG.get(current)!, replacedFrom: slug, shutdownAt: requested.shutdownAt };
    seen.add(current);
    current = lifecycleOf(current)!.replacement;
  }
  throw new ModelRetiredError(slug, requested.shutdownAt);
}

/**
 * The model a stored record (a generation, a lease) names. A slug retired since the record was written is answered
 * by the model that serves it now, so pending work on it can still be finished or released.
 * @throws UnknownModelError, ModelRetiredError
 */
export function modelOfRecord(slug: string): ModelDefinition {
  return MODEL_BY_SLUG.get(slug) ?? resolveModel(slug).model;
}

/** Models past or within `withinDays` of their shutdown, deprecated, gone or disabled: for the operator's warning. */
export function endingModels(
  now = new Date(),
  withinDays = 60,
): { slug: string; shutdownAt: string | null; deprecatedAt: string | null; replacement: string | null; retired: boolean }[] {
  const horizon = isoDay(new Date(now.getTime() + withinDays * 86_400_000));
  return MODELS.flatMap((m) => {
    const l = lifecycleOf(m.slug)!;
    const retired = isRetired(m.slug, now);
    const ending = retired || l.deprecatedAt !== null || (l.shutdownAt !== null && l.shutdownAt <= horizon);
    return ending ? [{ slug: m.slug, shutdownAt: l.shutdownAt, deprecatedAt: l.deprecatedAt, replacement: l.replacement, retired }] : [];
  });
}
