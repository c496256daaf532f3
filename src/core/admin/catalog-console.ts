// The operator's catalog: each model's lifecycle, what it charges beside what the vendor lists, the last check's
// findings; and the lifecycle changes of `catalog:set`, audited.
import type { DataSource } from 'typeorm';
import { ParamError, UnknownModelError } from '../catalog/errors';
import { catalogEntry } from '../catalog/lifecycle';
import {
  describeCatalogEntry,
  describeCatalogPrice,
  type CatalogEntryState,
  type CatalogPriceInput,
  type CatalogPriceState,
  type CatalogSetInput,
  type LiveCatalog,
} from '../catalog/live/live-catalog';
import type { StoredFinding } from '../catalog/live/store';
import { MODELS } from '../catalog/models';
import { cheapestToken, modelPriceReport, type CurrencyRates, type ModelPriceReport } from '../catalog/price-report';
import type { AdminActor, AdminAuditLog } from './audit-log';

type AuditRecorder = Pick<AdminAuditLog, 'record'>;
import { tokenOffers } from './token-offers';

export interface CatalogModelRecord {
  state: CatalogEntryState;
  category: string;
  /** Rates per unit (tokens charged, vendor list price in USD, that charge valued at the cheapest token sold). */
  prices: ModelPriceReport;
  lastCheck: StoredFinding | null;
}

export interface CatalogConsoleView {
  rates: CurrencyRates;
  /** What one token brings in at the cheapest offer (USD), or null when nothing is on sale. */
  tokenUsd: number | null;
  models: CatalogModelRecord[];
}

export class CatalogConsole {
  constructor(
    private readonly ds: DataSource,
    private readonly catalog: LiveCatalog,
    private readonly rates: CurrencyRates,
    private readonly audit: AuditRecorder,
  ) {}

  async view(): Promise<CatalogConsoleView> {
    const [offers, findings] = await Promise.all([tokenOffers(this.ds), this.catalog.findings()]);
    const bySlug = new Map(findings.map((f) => [f.slug, f]));
    const cheapest = cheapestToken(offers, this.rates);
    return {
      rates: this.rates,
      tokenUsd: cheapest?.usd ?? null,
      models: MODELS.map((m) => ({
        state: describeCatalogEntry(m.slug),
        category: m.category,
        prices: modelPriceReport(m, cheapest?.usd ?? 0),
        lastCheck: bySlug.get(m.slug) ?? null,
      })),
    };
  }

  async model(slug: string): Promise<CatalogModelRecord> {
    const view = await this.view();
    const found = view.models.find((m) => m.state.slug === slug);
    if (!found) throw new ParamError('slug', `unknown model "${slug}"`);
    return found;
  }

  /** Enables, disables, replaces or dates a model's shutdown; one audit row in the change's transaction. @throws ParamError */
  async update(slug: string, input: CatalogSetInput, actor: AdminActor): Promise<CatalogModelRecord> {
    if (!MODELS.some((m) => m.slug === slug)) throw new UnknownModelError(slug);
    if (input.enabled === undefined && input.replacement === undefined && input.shutdownAt === undefined) {
      throw new ParamError('body', 'give at least one of enabled, replacement, shutdown_at');
    }
    await auditedCatalogSet(this.catalog, this.audit, actor, slug, input);
    return this.model(slug);
  }
}

const lifecycle = (s: Pick<CatalogEntryState, 'enabled' | 'replacement' | 'shutdown_at'>) => ({
  enabled: s.enabled,
  replacement: s.replacement,
  shutdown_at: s.shutdown_at,
});

/**
 * `catalog:set` from any door: the change and its audit row (`catalog.update`, before and after) in one transaction.
 * @throws ParamError
 */
export async function auditedCatalogSet(
  catalog: LiveCatalog,
  audit: AuditRecorder,
  actor: AdminActor,
  slug: string,
  input: CatalogSetInput,
): Promise<CatalogEntryState> {
  const before = catalogEntry(slug) ? describeCatalogEntry(slug) : null;
  return catalog.set(slug, input, (m) =>
    audit.record(
      {
        actor,
        action: 'catalog.update',
        target: { type: 'model', id: slug },
        before: before && lifecycle(before),
        after: {
          ...(before && lifecycle(before)),
          ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
          ...(input.replacement !== undefined ? { replacement: input.replacement } : {}),
          ...(input.shutdownAt !== undefined ? { shutdown_at: input.shutdownAt } : {}),
        },
      },
      m,
    ),
  );
}

const priceOf = (p: CatalogPriceState) => ({
  override: p.override,
  token_cost: p.token_cost,
  min_token_cost: p.min_token_cost,
  max_token_cost: p.max_token_cost,
});

/**
 * `catalog:price` from any door: the override (or its removal) and its audit row (`catalog.price`, the model's price
 * before and after) in one transaction. @throws ParamError
 */
export async function auditedCatalogPrice(
  catalog: LiveCatalog,
  audit: AuditRecorder,
  actor: AdminActor,
  slug: string,
  input: CatalogPriceInput,
): Promise<CatalogPriceState> {
  const before = MODELS.some((m) => m.slug === slug) ? describeCatalogPrice(slug) : null;
  const after = await catalog.setPrice(slug, input, (m) =>
    audit.record(
      {
        actor,
        action: 'catalog.price',
        target: { type: 'model', id: slug },
        before: before && priceOf(before),
        after: 'clear' in input ? { override: null } : { override: { by: 'operator', ...input, reason: input.reason.trim() } },
      },
      m,
    ),
  );
  return after;
}
