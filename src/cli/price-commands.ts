import type { DataSource } from 'typeorm';
import { ParamError } from '../core/catalog/errors';
import { LiveCatalog, type CatalogPriceInput, type CatalogPriceState } from '../core/catalog/live/live-catalog';
import { CatalogStore } from '../core/catalog/live/store';
import { MODELS } from '../core/catalog/models';
import { priceReport, type CurrencyRates, type PriceReport } from '../core/catalog/price-report';
import { adminActors, AdminAuditLog } from '../core/admin/audit-log';
import { auditedCatalogPrice } from '../core/admin/catalog-console';
import { tokenOffers } from '../core/admin/token-offers';
import type { Logger } from '../logger';

// The operator's price commands: `catalog:price` (an override) and `catalog:prices` (cost, charge and margin).

/** `catalog:price --slug S (--factor F | --tokens N) --reason R`, or `--clear`; in the audit log (`catalog.price`). @throws ParamError */
export async function setPrice(ds: DataSource, log: Logger, args: Record<string, string | undefined>): Promise<CatalogPriceState> {
  const slug = args.slug?.trim();
  if (!slug) throw new ParamError('slug', '--slug is required');
  const given = ['factor', 'tokens', 'clear'].filter((k) => args[k] !== undefined);
  if (given.length !== 1) throw new ParamError('factor', 'give one of --factor, --tokens, --clear');
  let input: CatalogPriceInput;
  if (args.clear !== undefined) input = { clear: true };
  else if (args.factor !== undefined) input = { factor: Number(args.factor), reason: args.reason ?? '' };
  else input = { tokens: Number(args.tokens), reason: args.reason ?? '' };
  const catalog = new LiveCatalog(new CatalogStore(ds), log);
  await catalog.load();
  return auditedCatalogPrice(catalog, new AdminAuditLog(ds), adminActors.cli(), slug, input);
}

/** `catalog:prices`: every catalog model's vendor cost and charge, valued at the cheapest token sold. */
export async function pricesReport(ds: DataSource, log: Logger, rates: CurrencyRates): Promise<PriceReport> {
  const catalog = new LiveCatalog(new CatalogStore(ds), log);
  await catalog.load();
  return priceReport(MODELS, await tokenOffers(ds), rates);
}
