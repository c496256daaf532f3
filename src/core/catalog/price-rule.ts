// The one rule that turns a vendor's list price (providers/<vendor>/prices.ts) into what the service charges.
//
//   A request is charged TOKENS_PER_USD tokens for each US dollar the vendor lists for it, rounded up to a whole
//   token, never below the model's minimum (at least 1).
//
// Per unit, that is: 0.2 tokens per 1000 text tokens for each dollar per million (input, cached input, cache write and
// output alike); 200 tokens per dollar of an image, of a second of video, of 1000 characters of speech. Models the
// spec prices per request (speech-to-text, music, tools) are charged the rule's price of their typical request (a
// minute of audio, the default duration, one run), unless a price override says otherwise.
//
// Overrides win over the rule: the catalog's own (house-prices.ts, each with its reason) and the operator's
// (`catalog:price`, kept in the database). An override either scales every rate of the model (`factor`) or sets the
// price of a request (`tokens`, for per-request models).
import type { VendorPrice } from '../providers/prices';
import type { CharactersPricing, DurationPricing, FixedPricing, ImagePricing, ImageQuality, UsagePricing } from './types';

export const TOKENS_PER_USD = 200;

export interface PriceOverride {
  /** Scales every rate of the model (1 is the rule). */
  factor?: number;
  /** The price of one request in tokens (models priced per request). */
  tokens?: number;
  reason: string;
}

/** Tokens for `usd` under the rule, scaled by an override's factor. Fractional: a request's price rounds up. */
export function ruleTokens(usd: number, override?: PriceOverride): number {
  // Rounded to 1e-9 so a rate reads as the decimal it is (0.16, not 0.16000000000000003).
  return Math.round(usd * TOKENS_PER_USD * (override?.factor ?? 1) * 1e9) / 1e9;
}

function ofUnit<U extends VendorPrice['unit']>(price: VendorPrice, units: U[], what: string): Extract<VendorPrice, { unit: U }> {
  if (!(units as string[]).includes(price.unit)) throw new Error(`${what} needs a ${units.join(' or ')} price, not ${price.unit}`);
  return price as Extract<VendorPrice, { unit: U }>;
}

/** Text: tokens per 1000 of each kind of token. */
export function usagePricing(price: VendorPrice, min: number, override?: PriceOverride): UsagePricing {
  const p = ofUnit(price, ['tokens'], 'a text model');
  const per1k = (perM: number) => ruleTokens(perM / 1000, override);
  return {
    kind: 'usage',
    inputPer1k: per1k(p.inputPerM),
    cachedInputPer1k: per1k(p.cachedInputPerM),
    cacheWritePer1k: per1k(p.cacheWritePerM),
    outputPer1k: per1k(p.outputPerM),
    min,
  };
}

/** Images: tokens per image by size class and quality; a model that offers `hd` needs the vendor's hd price. */
export function imagePricing(price: VendorPrice, qualities: readonly ImageQuality[], override?: PriceOverride): ImagePricing {
  const p = ofUnit(price, ['image', 'run'], 'an image model');
  const square = p.unit === 'image' ? p.square : { standard: p.perRun };
  const nonSquare = p.unit === 'image' ? (p.nonSquare ?? p.square) : square;
  const byQuality = (usd: { standard: number; hd?: number }): Partial<Record<ImageQuality, number>> =>
    Object.fromEntries(
      qualities.map((q) => {
        const value = q === 'hd' ? usd.hd : usd.standard;
        if (value === undefined) throw new Error(`the vendor list has no ${q} price (${p.source})`);
        return [q, ruleTokens(value, override)];
      }),
    );
  return { kind: 'image', square: byQuality(square), nonSquare: byQuality(nonSquare) };
}

/** Video: tokens per second of output, over the durations the model offers. */
export function durationPricing(
  price: VendorPrice,
  allowedSeconds: readonly number[],
  defaultSeconds: number,
  override?: PriceOverride,
): DurationPricing {
  const p = ofUnit(price, ['second'], 'a video model');
  return { kind: 'duration', perSecond: ruleTokens(p.perSecond, override), allowedSeconds: [...allowedSeconds], defaultSeconds };
}

/** Speech synthesis: tokens per 1000 characters of text. */
export function charactersPricing(price: VendorPrice, min: number, override?: PriceOverride): CharactersPricing {
  const p = ofUnit(price, ['characters'], 'a speech model');
  return { kind: 'characters', tokensPer1000: ruleTokens(p.per1kCharacters, override), min };
}

/** What the vendor lists for a per-request model's typical request: a minute of audio, `seconds` of music, one run. */
export function typicalRequestUsd(price: VendorPrice, seconds: number): number {
  switch (price.unit) {
    case 'audio-minute':
      return price.perMinute;
    case 'second':
      return price.perSecond * seconds;
    case 'run':
      return price.perRun;
    case 'image':
      return price.square.standard;
    default:
      throw new Error(`a per-request model cannot be priced per ${price.unit}`);
  }
}

/** Per-request models (speech-to-text, music, tools): the override's tokens, else the rule's price of the typical request. */
export function fixedPricing(price: VendorPrice, typicalSeconds: number, override?: PriceOverride): FixedPricing {
  if (override?.tokens !== undefined) return { kind: 'fixed', tokens: override.tokens };
  return { kind: 'fixed', tokens: Math.max(1, Math.ceil(ruleTokens(typicalRequestUsd(price, typicalSeconds), override) - 1e-9)) };
}
