// `catalog:prices`: what each model costs the operator at the vendor and what it charges, valued at the cheapest
// token the service sells, with every model sold below cost flagged.
import { vendorPrice } from '../providers/price-lists';
import type { VendorPrice } from '../providers/prices';
import { pricingOf, priceOverrideOf } from './effective-prices';
import { isNonSquareSize, quoteGeneration } from './pricing';
import type { ModelDefinition } from './types';

/** How tokens are valued in US dollars: the rates the operator sells in are converted with these. */
export interface CurrencyRates {
  /** Rubles per US dollar. */
  rubPerUsd: number;
  /** US dollars the operator receives per Telegram Star. */
  usdPerStar: number;
}

/** Something sold that credits tokens: a token package, or a plan period with its allowance. */
export interface TokenOffer {
  article: string;
  tokens: number;
  rub: number;
  stars: number;
}

/** The cheapest token the service sells, over every offer and both currencies. */
export interface CheapestToken {
  article: string;
  currency: 'RUB' | 'XTR';
  /** What one token brings in. */
  usd: number;
}

export function cheapestToken(offers: readonly TokenOffer[], rates: CurrencyRates): CheapestToken | null {
  let best: CheapestToken | null = null;
  for (const o of offers) {
    if (o.tokens <= 0) continue;
    for (const [currency, usd] of [
      ['RUB', o.rub / rates.rubPerUsd],
      ['XTR', o.stars * rates.usdPerStar],
    ] as const) {
      const perToken = usd / o.tokens;
      if (best === null || perToken < best.usd) best = { article: o.article, currency, usd: perToken };
    }
  }
  return best;
}

/** One priced unit of a model: what the vendor lists for it and what the service charges. */
export interface PriceLine {
  unit: string;
  vendor_usd: number;
  tokens: number;
  /** `tokens` valued at the cheapest token sold. */
  revenue_usd: number;
  below_cost: boolean;
}

export interface ModelPriceReport {
  slug: string;
  provider: string;
  category: string;
  /** The override in force (`catalog`: house-prices.ts; `operator`: catalog:price), or null: the rule. */
  override: { by: 'catalog' | 'operator'; factor: number | null; tokens: number | null; reason: string } | null;
  source: string;
  read: string;
  lines: PriceLine[];
  below_cost: boolean;
}

/** A 25 MB upload at 128 kbit/s, the longest audio a transcription takes. */
const LONGEST_AUDIO_MINUTES = 26;

const usd = (n: number) => Number(n.toPrecision(6));

function units(model: ModelDefinition, price: VendorPrice): { unit: string; vendorUsd: number; tokens: number }[] {
  switch (model.category) {
    case 'text': {
      if (price.unit !== 'tokens') break;
      const p = pricingOf(model);
      return [
        { unit: '1M input tokens', vendorUsd: price.inputPerM, tokens: p.inputPer1k * 1000 },
        { unit: '1M cached input tokens', vendorUsd: price.cachedInputPerM, tokens: p.cachedInputPer1k * 1000 },
        { unit: '1M cache-write tokens', vendorUsd: price.cacheWritePerM, tokens: p.cacheWritePer1k * 1000 },
        { unit: '1M output tokens', vendorUsd: price.outputPerM, tokens: p.outputPer1k * 1000 },
      ];
    }
    case 'image': {
      const square = model.config.sizes.find((s) => !isNonSquareSize(s));
      const other = model.config.sizes.find((s) => isNonSquareSize(s));
      return [square, other].flatMap((size) =>
        size === undefined
          ? []
          : model.config.qualities.map((quality) => {
              const tier = price.unit === 'image' ? (isNonSquareSize(size) ? (price.nonSquare ?? price.square) : price.square) : undefined;
              const vendorUsd = price.unit === 'run' ? price.perRun : ((quality === 'hd' ? tier?.hd : tier?.standard) ?? NaN);
              return { unit: `1 image ${size} ${quality}`, vendorUsd, tokens: quoteGeneration(model, { size, quality }) };
            }),
      );
    }
    case 'video': {
      if (price.unit !== 'second') break;
      const seconds = [...new Set([model.config.default_duration, Math.max(...model.config.durations)])];
      return seconds.map((s) => ({
        unit: `${s} s of video`,
        vendorUsd: price.perSecond * s,
        tokens: quoteGeneration(model, { durationSeconds: s }),
      }));
    }
    case 'tts':
      if (price.unit !== 'characters') break;
      return [{ unit: '1000 characters', vendorUsd: price.per1kCharacters, tokens: quoteGeneration(model, { prompt: 'x'.repeat(1000) }) }];
    case 'stt':
      if (price.unit !== 'audio-minute') break;
      return [1, LONGEST_AUDIO_MINUTES].map((minutes) => ({
        unit: `${minutes} min of audio`,
        vendorUsd: price.perMinute * minutes,
        tokens: quoteGeneration(model),
      }));
    case 'music': {
      const seconds = [...new Set([model.config.default_duration, model.config.max_duration])];
      return seconds.map((s) => ({
        unit: `${s} s of music`,
        vendorUsd: price.unit === 'second' ? price.perSecond * s : price.unit === 'run' ? price.perRun : NaN,
        tokens: quoteGeneration(model, { durationSeconds: s }),
      }));
    }
    case 'tool':
      return [
        {
          unit: '1 run',
          vendorUsd: price.unit === 'run' ? price.perRun : price.unit === 'image' ? price.square.standard : NaN,
          tokens: quoteGeneration(model),
        },
      ];
  }
  throw new Error(`${model.slug}: a ${model.category} model cannot be priced per ${price.unit}`);
}

export function modelPriceReport(model: ModelDefinition, tokenUsd: number): ModelPriceReport {
  const price = vendorPrice(model.provider, model.upstreamModel);
  const override = priceOverrideOf(model.slug);
  const lines = units(model, price).map((u) => {
    const revenue = u.tokens * tokenUsd;
    return {
      unit: u.unit,
      vendor_usd: usd(u.vendorUsd),
      tokens: usd(u.tokens),
      revenue_usd: usd(revenue),
      below_cost: revenue < u.vendorUsd,
    };
  });
  return {
    slug: model.slug,
    provider: model.provider,
    category: model.category,
    override: override
      ? {
          by: override.by,
          factor: override.override.factor ?? null,
          tokens: override.override.tokens ?? null,
          reason: override.override.reason,
        }
      : null,
    source: price.source,
    read: price.read,
    lines,
    below_cost: lines.some((l) => l.below_cost),
  };
}

export interface PriceReport {
  rates: { rub_per_usd: number; usd_per_star: number };
  cheapest_token: CheapestToken | null;
  models: ModelPriceReport[];
  /** The slugs of `models` sold below cost at the cheapest token. */
  below_cost: string[];
}

/** The report over `models`; without anything on sale, tokens are valued at nothing (every model is below cost). */
export function priceReport(models: readonly ModelDefinition[], offers: readonly TokenOffer[], rates: CurrencyRates): PriceReport {
  const cheapest = cheapestToken(offers, rates);
  const reports = models.map((m) => modelPriceReport(m, cheapest?.usd ?? 0));
  return {
    rates: { rub_per_usd: rates.rubPerUsd, usd_per_star: rates.usdPerStar },
    cheapest_token: cheapest && { ...cheapest, usd: usd(cheapest.usd) },
    models: reports,
    below_cost: reports.filter((r) => r.below_cost).map((r) => r.slug),
  };
}
