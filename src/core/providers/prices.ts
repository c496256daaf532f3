import type { HostedTool } from './types';

// The shape of a vendor's price list. Each vendor keeps its own list, in USD at the vendor's list (pay-as-you-go)
// rates, in its room (`providers/<vendor>/prices.ts`); what the service charges follows from it by one rule
// (core/catalog/price-rule.ts).

/** Where a price was read and when: the vendor's page and the day (`YYYY-MM-DD`). */
export interface PriceSource {
  source: string;
  read: string;
  /** How the row follows from the page, when it is not a plain copy (a conversion, a default the adapter relies on). */
  note?: string;
}

/** Text models: USD per million tokens. Reasoning tokens are billed as output by every catalog vendor. */
export interface TokenPrice extends PriceSource {
  unit: 'tokens';
  inputPerM: number;
  /** A prompt token read from the vendor's prompt cache. */
  cachedInputPerM: number;
  /** A prompt token written to the cache, where the vendor bills the write above the input price (else the input price). */
  cacheWritePerM: number;
  outputPerM: number;
}

/** USD for one image of each quality; `hd` only for models that offer it. */
export interface ImageQualityPrices {
  standard: number;
  hd?: number;
}

/** Images: USD per image, by size class and quality. */
export interface ImagePrice extends PriceSource {
  unit: 'image';
  square: ImageQualityPrices;
  /** Sizes whose width differs from their height; the square prices when the vendor does not distinguish. */
  nonSquare?: ImageQualityPrices;
}

/** Video and music: USD per second of output. */
export interface SecondPrice extends PriceSource {
  unit: 'second';
  perSecond: number;
}

/** Speech synthesis: USD per 1000 characters of input text. */
export interface CharacterPrice extends PriceSource {
  unit: 'characters';
  per1kCharacters: number;
}

/** Transcription: USD per minute of input audio. */
export interface AudioMinutePrice extends PriceSource {
  unit: 'audio-minute';
  perMinute: number;
}

/** A run billed as a whole (a tool on rented hardware, a local model): USD per request. */
export interface RunPrice extends PriceSource {
  unit: 'run';
  perRun: number;
}

export type VendorPrice = TokenPrice | ImagePrice | SecondPrice | CharacterPrice | AudioMinutePrice | RunPrice;
export type PriceUnit = VendorPrice['unit'];

/** One vendor's list prices, by the vendor's own model id (the catalog's `upstreamModel`). */
export type VendorPriceList = Readonly<Record<string, VendorPrice>>;

type Fields<P extends VendorPrice> = Omit<P, 'unit' | keyof PriceSource>;

/** A token price; the cache write costs the input price unless the vendor names one. */
export function perToken(prices: Omit<Fields<TokenPrice>, 'cacheWritePerM'> & { cacheWritePerM?: number }, from: PriceSource): TokenPrice {
  return { unit: 'tokens', ...prices, cacheWritePerM: prices.cacheWritePerM ?? prices.inputPerM, ...from };
}

export function perImage(prices: Fields<ImagePrice>, from: PriceSource): ImagePrice {
  return { unit: 'image', ...prices, ...from };
}

export function perSecond(usd: number, from: PriceSource): SecondPrice {
  return { unit: 'second', perSecond: usd, ...from };
}

export function per1kCharacters(usd: number, from: PriceSource): CharacterPrice {
  return { unit: 'characters', per1kCharacters: usd, ...from };
}

export function perAudioMinute(usd: number, from: PriceSource): AudioMinutePrice {
  return { unit: 'audio-minute', perMinute: usd, ...from };
}

export function perRun(usd: number, from: PriceSource): RunPrice {
  return { unit: 'run', perRun: usd, ...from };
}

/** A tool the vendor runs itself (a web search): USD per use, as its price list gives it. */
export interface ToolUsePrice extends PriceSource {
  perUse: number;
}

/** A vendor's prices of the hosted tools its adapter passes on (see `VendorCapabilities.hostedTools`). */
export type HostedToolPriceList = Readonly<Partial<Record<HostedTool, ToolUsePrice>>>;

export function perUse(usd: number, from: PriceSource): ToolUsePrice {
  return { perUse: usd, ...from };
}
