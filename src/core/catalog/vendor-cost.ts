// What a generation used at the vendor and what that cost the operator in US dollars, at the vendor's list price
// (providers/<vendor>/prices.ts) of the model that served it. Kept with every completed generation.
import { vendorPrice } from '../providers/price-lists';
import type { VendorPrice } from '../providers/prices';
import type { ChatUsage, MediaOutput } from '../providers/types';
import { characterCount } from './limits';
import type { NormalizedParams } from './params';
import { isNonSquareSize } from './pricing';
import type { ImageQuality, ModelDefinition } from './types';

/** The vendor's usage as the generation stores it (`generations.vendor_usage`): only what applies. */
export interface VendorUsage {
  /** Every prompt token, cached or not. */
  input_tokens?: number;
  /** Of the prompt, read from the vendor's cache. */
  cached_input_tokens?: number;
  /** Of the prompt, written to the vendor's cache. */
  cache_write_tokens?: number;
  /** Every output token, reasoning included. */
  output_tokens?: number;
  /** Of the output, spent reasoning. */
  reasoning_tokens?: number;
  images?: number;
  /** Seconds of video or music made. */
  seconds?: number;
  /** Characters of text read aloud. */
  characters?: number;
  /** Seconds of audio transcribed. */
  audio_seconds?: number;
  /** Runs billed as a whole (a tool). */
  runs?: number;
}

const whole = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && n > 0 ? n : 0);

/** A chat answer's usage as the vendor reported it. */
export function chatVendorUsage(usage: ChatUsage): VendorUsage {
  const out: VendorUsage = { input_tokens: whole(usage.promptTokens), output_tokens: whole(usage.completionTokens) };
  if (usage.cachedTokens) out.cached_input_tokens = whole(usage.cachedTokens);
  if (usage.cacheWriteTokens) out.cache_write_tokens = whole(usage.cacheWriteTokens);
  if (usage.reasoningTokens) out.reasoning_tokens = whole(usage.reasoningTokens);
  return out;
}

// gpt-4o-transcribe reports audio tokens, not seconds: OpenAI prices them at $2.50 per million, $0.006 a minute.
const AUDIO_TOKENS_PER_SECOND = 40;

/** A media generation's usage: what the vendor reported, else what was asked for and made. */
export function mediaVendorUsage(model: ModelDefinition, params: NormalizedParams, output: MediaOutput): VendorUsage {
  const reported = output.usage ?? {};
  switch (model.category) {
    case 'image':
      return { images: Math.max(1, output.files.length) };
    case 'video':
    case 'music':
      return { seconds: whole(output.durationSeconds ?? reported.seconds ?? params.durationSeconds) };
    case 'tts':
      return { characters: whole(reported.characters ?? characterCount(params.prompt ?? '')) };
    case 'stt': {
      const seconds = output.durationSeconds ?? reported.seconds ?? whole(reported.input_tokens) / AUDIO_TOKENS_PER_SECOND;
      return { audio_seconds: Math.round(whole(seconds) * 100) / 100 };
    }
    case 'tool':
      return { runs: 1 };
    case 'text':
      return {};
  }
}

function imageUsd(price: VendorPrice, size: string | undefined, quality: ImageQuality | undefined): number {
  if (price.unit === 'run') return price.perRun;
  if (price.unit !== 'image') return NaN;
  const tier = size && isNonSquareSize(size) ? (price.nonSquare ?? price.square) : price.square;
  return (quality === 'hd' ? tier.hd : undefined) ?? tier.standard;
}

/** What `usage` cost at the vendor's list price, in US dollars (rounded to 1e-8, the column's scale). */
export function vendorCostUsd(model: ModelDefinition, usage: VendorUsage, params: Partial<NormalizedParams> = {}): number {
  const price = vendorPrice(model.provider, model.upstreamModel);
  let usd: number;
  switch (price.unit) {
    case 'tokens': {
      const input = whole(usage.input_tokens);
      const cached = Math.min(input, whole(usage.cached_input_tokens));
      const written = Math.min(input - cached, whole(usage.cache_write_tokens));
      usd =
        ((input - cached - written) * price.inputPerM +
          cached * price.cachedInputPerM +
          written * price.cacheWritePerM +
          whole(usage.output_tokens) * price.outputPerM) /
        1e6;
      break;
    }
    case 'image':
      usd = whole(usage.images ?? 1) * imageUsd(price, params.size, params.quality);
      break;
    case 'second':
      usd = whole(usage.seconds) * price.perSecond;
      break;
    case 'characters':
      usd = (whole(usage.characters) * price.per1kCharacters) / 1000;
      break;
    case 'audio-minute':
      usd = (whole(usage.audio_seconds) / 60) * price.perMinute;
      break;
    case 'run':
      usd = model.category === 'image' ? whole(usage.images ?? 1) * price.perRun : Math.max(1, whole(usage.runs)) * price.perRun;
      break;
  }
  return Math.round(usd * 1e8) / 1e8;
}
