// The prices a model charges now: the catalog's (the rule, with house-prices.ts), unless the operator set an override
// (`catalog:price`, kept in the database and reloaded by every instance with the rest of the catalog's state).
import { vendorPrice } from '../providers/price-lists';
import { HOUSE_PRICES } from './house-prices';
import { charactersPricing, durationPricing, fixedPricing, imagePricing, usagePricing, type PriceOverride } from './price-rule';
import type { ModelDefinition, PricingRule } from './types';

/** An operator's price override of one model (`catalog:price`). */
export interface OperatorPriceOverride extends PriceOverride {
  slug: string;
}

let operator: ReadonlyMap<string, OperatorPriceOverride> = new Map();
let repriced = new Map<string, PricingRule>();

/** Replaces this process's view of the operator's overrides (LiveCatalog, on every reload). */
export function applyPriceOverrides(overrides: readonly OperatorPriceOverride[]): void {
  operator = new Map(overrides.map((o) => [o.slug, o]));
  repriced = new Map();
}

/** The override in force for a model and who set it, if any: the operator's wins over the catalog's. */
export function priceOverrideOf(slug: string): { by: 'operator' | 'catalog'; override: PriceOverride } | undefined {
  const mine = operator.get(slug);
  if (mine) return { by: 'operator', override: mine };
  const house = HOUSE_PRICES[slug];
  return house ? { by: 'catalog', override: house } : undefined;
}

/** The rule's pricing of a model under an override (none: the rule alone). */
export function rulePricing(model: ModelDefinition, override?: PriceOverride): PricingRule {
  const price = vendorPrice(model.provider, model.upstreamModel);
  switch (model.category) {
    case 'text':
      return usagePricing(price, model.pricing.min, override);
    case 'image':
      return imagePricing(price, model.config.qualities, override);
    case 'video':
      return durationPricing(price, model.pricing.allowedSeconds, model.pricing.defaultSeconds, override);
    case 'tts':
      return charactersPricing(price, model.pricing.min, override);
    case 'stt':
      return fixedPricing(price, 60, override);
    case 'music':
      return fixedPricing(price, model.config.default_duration, override);
    case 'tool':
      return fixedPricing(price, 0, override);
  }
}

/** What the model charges now. */
export function pricingOf<M extends ModelDefinition>(model: M): M['pricing'] {
  const mine = operator.get(model.slug);
  if (!mine) return model.pricing;
  let rule = repriced.get(model.slug);
  if (!rule) {
    rule = rulePricing(model, mine);
    repriced.set(model.slug, rule);
  }
  return rule as M['pricing'];
}
