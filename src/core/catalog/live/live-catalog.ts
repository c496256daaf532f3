import type { EntityManager } from 'typeorm';
import type { Logger } from '../../../logger';
import { ParamError } from '../errors';
import {
  applyCatalogState,
  catalogEntry,
  isRetired,
  lifecycleOf,
  resolveModel,
  type CatalogOverride,
  type VendorFinding,
} from '../lifecycle';
import { applyPriceOverrides, priceOverrideOf, type OperatorPriceOverride } from '../effective-prices';
import { MODELS } from '../models';
import { baseTokenCost, priceRange } from '../pricing';
import type { ChangeChannelListener } from './changes';
import { checkCatalog, vendorAccess, type CatalogChange, type CatalogReport, type ConnectionFor } from './check';
import type { CatalogStore, StoredFinding } from './store';

/** What `catalog:set` prints: the slug's effective lifecycle after the change. */
export interface CatalogEntryState {
  slug: string;
  provider: string;
  upstream_id: string;
  deprecated_at: string | null;
  shutdown_at: string | null;
  replacement: string | null;
  enabled: boolean;
  retired: boolean;
  /** The slug that answers requests for it now (itself, its replacement), or null: 410 model_retired. */
  served_by: string | null;
}

export interface CatalogSetInput {
  replacement?: string;
  shutdownAt?: string;
  enabled?: boolean;
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** What `catalog:price` prints: the model's override in force and the prices it gives. */
export interface CatalogPriceState {
  slug: string;
  /** `operator`: set with catalog:price; `catalog`: the catalog's own (house-prices.ts); null: the rule alone. */
  override: { by: 'operator' | 'catalog'; factor: number | null; tokens: number | null; reason: string } | null;
  token_cost: number;
  min_token_cost: number;
  max_token_cost: number;
}

/** An operator's price change (`catalog:price`): a factor on every rate, a per-request price, or back to the rule. */
export type CatalogPriceInput = { factor: number; reason: string } | { tokens: number; reason: string } | { clear: true };

/** Per-request models: priced by the request, so an operator may set their tokens. */
const PER_REQUEST = new Set(['stt', 'music', 'tool']);

export function describeCatalogPrice(slug: string): CatalogPriceState {
  const model = MODELS.find((m) => m.slug === slug)!;
  const o = priceOverrideOf(slug);
  const range = priceRange(model);
  return {
    slug,
    override: o ? { by: o.by, factor: o.override.factor ?? null, tokens: o.override.tokens ?? null, reason: o.override.reason } : null,
    token_cost: baseTokenCost(model),
    min_token_cost: range.min,
    max_token_cost: range.max,
  };
}

export function describeCatalogEntry(slug: string, now = new Date()): CatalogEntryState {
  const entry = catalogEntry(slug)!;
  const l = lifecycleOf(slug)!;
  let servedBy: string | null;
  try {
    servedBy = resolveModel(slug, now).model.slug;
  } catch {
    servedBy = null;
  }
  return {
    slug,
    provider: entry.provider,
    upstream_id: entry.upstreamModel,
    deprecated_at: l.deprecatedAt,
    shutdown_at: l.shutdownAt,
    replacement: l.replacement,
    enabled: l.enabled,
    retired: isRetired(slug, now),
    served_by: servedBy,
  };
}

/**
 * The catalog as this instance serves it: the code's data plus the database's overrides and vendor findings,
 * reloaded whenever either changes (a NOTIFY from any instance or writer) and whenever listening restarts.
 */
export class LiveCatalog implements ChangeChannelListener {
  private loading: Promise<void> = Promise.resolve();
  private waiters: (() => void)[] = [];
  private readonly changeListeners: ((changes: CatalogChange[]) => void)[] = [];

  constructor(
    private readonly store: CatalogStore,
    private readonly log: Logger,
  ) {}

  /** Reads the overrides and findings and applies them (loads run one after another: the last one wins). */
  load(): Promise<void> {
    this.loading = this.loading.then(async () => {
      try {
        const [overrides, findings, prices] = await Promise.all([
          this.store.overrides(),
          this.store.findings(),
          this.store.priceOverrides(),
        ]);
        applyCatalogState({ overrides, findings });
        applyPriceOverrides(prices);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'catalog overrides not reloaded; the previous ones stay');
      }
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    });
    return this.loading;
  }

  heard(): void {
    void this.load();
  }

  reset(): void {
    void this.load();
  }

  /** Resolves after the next reload finishes (a change heard from any instance), or after `timeoutMs`. */
  nextReload(timeoutMs = 5000): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * The operator's change to a slug (`catalog:set`), kept in the database; `inside` runs in the change's transaction
   * (the audit row). @throws ParamError
   */
  async set(slug: string, input: CatalogSetInput, inside?: (m: EntityManager) => Promise<void>): Promise<CatalogEntryState> {
    const entry = catalogEntry(slug);
    if (!entry) throw new ParamError('slug', `unknown model "${slug}" (see models:list)`);
    if (input.replacement !== undefined) {
      const target = MODELS.find((m) => m.slug === input.replacement);
      if (!target) throw new ParamError('replacement', `unknown model "${input.replacement}": a replacement is a catalog model`);
      if (target.slug === slug) throw new ParamError('replacement', 'a model cannot replace itself');
      if (target.category !== entry.category) {
        throw new ParamError('replacement', `${target.slug} is a ${target.category} model; ${slug} needs a ${entry.category} model`);
      }
    }
    if (input.shutdownAt !== undefined && (!ISO_DAY.test(input.shutdownAt) || Number.isNaN(Date.parse(input.shutdownAt)))) {
      throw new ParamError('shutdown_at', '--shutdown-at is a date YYYY-MM-DD');
    }
    const patch: Partial<Omit<CatalogOverride, 'slug'>> = {
      replacement: input.replacement,
      shutdownAt: input.shutdownAt,
      enabled: input.enabled,
    };
    await this.store.setOverride(slug, patch, inside);
    await this.load();
    return describeCatalogEntry(slug);
  }

  /**
   * The operator's price override of a model (`catalog:price`), kept in the database; `inside` runs in the change's
   * transaction (the audit row). @throws ParamError
   */
  async setPrice(slug: string, input: CatalogPriceInput, inside?: (m: EntityManager) => Promise<void>): Promise<CatalogPriceState> {
    const model = MODELS.find((m) => m.slug === slug);
    if (!model) throw new ParamError('slug', `unknown model "${slug}" (see models:list)`);
    if ('clear' in input) {
      await this.store.clearPriceOverride(slug, inside);
    } else {
      if (input.reason.trim() === '') throw new ParamError('reason', 'say why the price departs from the rule (--reason)');
      let override: OperatorPriceOverride;
      if ('factor' in input) {
        if (!Number.isFinite(input.factor) || input.factor <= 0 || input.factor > 100) {
          throw new ParamError('factor', '--factor is a number above 0 and at most 100 (1 is the rule)');
        }
        override = { slug, factor: input.factor, reason: input.reason.trim() };
      } else {
        if (!PER_REQUEST.has(model.category)) {
          throw new ParamError('tokens', `${slug} is priced by its usage, not per request: scale its rates with --factor`);
        }
        if (!Number.isInteger(input.tokens) || input.tokens < 1 || input.tokens > 100_000) {
          throw new ParamError('tokens', '--tokens is a whole number from 1 to 100000');
        }
        override = { slug, tokens: input.tokens, reason: input.reason.trim() };
      }
      await this.store.setPriceOverride(override, inside);
    }
    await this.load();
    return describeCatalogPrice(slug);
  }

  /** The stored vendor findings, as the check left them. */
  findings(): Promise<StoredFinding[]> {
    return this.store.findings();
  }

  async saveFindings(findings: readonly StoredFinding[]): Promise<void> {
    await this.store.saveFindings(findings);
    await this.load();
  }

  /** Told of what a check found changed (the bot forwards it to the admins). */
  onChange(listener: (changes: CatalogChange[]) => void): void {
    this.changeListeners.push(listener);
  }

  /**
   * Asks every vendor (catalog:check, the daily job) and keeps the findings (every instance reloads them). What changed
   * since the last check is told to the listeners (the admins) once, and before the findings take effect: a model found
   * gone is retired only after they were told, and its first miss warned them at least a day earlier.
   */
  async check(connectionFor: ConnectionFor, now = new Date()): Promise<{ report: CatalogReport; changes: CatalogChange[] }> {
    const previous = await this.store.findings();
    const { report, findings, found, changes } = await checkCatalog(vendorAccess(connectionFor), previous, now);
    this.tell(changes);
    await this.store.saveFindings(findings, found);
    await this.load();
    return { report, changes };
  }

  /**
   * A vendor answered "model not found" to a real request: the model is marked suspect and the admins are told (once
   * until a check finds it again). It retires nothing: only catalog:check can find a model gone.
   */
  async modelNotFound(slug: string, now = new Date()): Promise<boolean> {
    const model = MODELS.find((m) => m.slug === slug);
    if (!model) return false;
    const marked = await this.store.markSuspect(slug, model.provider, model.upstreamModel, now);
    if (marked) {
      const l = lifecycleOf(slug)!;
      this.tell([{ slug, before: null, status: 'suspect', shutdownAt: l.shutdownAt, replacement: l.replacement }]);
    }
    return marked;
  }

  private tell(changes: CatalogChange[]): void {
    if (changes.length === 0) return;
    this.log.warn({ changes }, `catalog: ${changes.map((c) => `${c.slug} ${c.status}`).join(', ')}`);
    for (const listener of this.changeListeners) listener(changes);
  }
}

export type { VendorFinding };
