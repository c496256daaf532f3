// Prices in tokens (our credit). Every price is an integer >= 1 (spec billing rule 5). The rates come from
// effective-prices.ts: the vendors' list prices under the rule (price-rule.ts), or an override.
import type { HostedTool } from '../providers/types';
import { toolUsePrice } from '../providers/price-lists';
import { pricingOf } from './effective-prices';
import { ruleTokens } from './price-rule';
import { ParamError } from './errors';
import { MAX_PROMPT_LENGTH, characterCount } from './limits';
import type { ImageQuality, ModelDefinition, PerMillionPrices, TextModel } from './types';

/** What a media/tool/stt/music price depends on; `NormalizedParams` (params.ts) satisfies it. */
export interface PriceParams {
  prompt?: string;
  size?: string;
  quality?: ImageQuality;
  durationSeconds?: number;
}

export interface ChatUsageCount {
  /** Every prompt token, cached or not. */
  promptTokens: number;
  completionTokens: number;
  /** Of the prompt, tokens read from the vendor's prompt cache. */
  cachedTokens?: number;
  /** Of the prompt, tokens written to the vendor's prompt cache. */
  cacheWriteTokens?: number;
  /** Hosted tool runs (web searches), each at the vendor's price per use under the rule. */
  toolUses?: Partial<Record<HostedTool, number>>;
}

/** The "ordinary request" behind a text model's `token_cost`: 1000 tokens in, 1000 out. */
export const TYPICAL_CHAT_USAGE: Readonly<ChatUsageCount> = Object.freeze({ promptTokens: 1000, completionTokens: 1000 });

/** The text length behind a speech model's `token_cost`. */
export const TYPICAL_TTS_CHARACTERS = 1000;

/** Per-message framing tokens (role markers and separators) added to the prompt estimate. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens the vendors add to prime the assistant reply. */
export const REPLY_PRIMING_TOKENS = 3;
/** Upper-end cost of one input image across the vision vendors (a large image on Claude is about 1600). */
export const IMAGE_PART_TOKENS = 1600;

/** Rounds a fractional price up to whole tokens; the epsilon keeps 2.0000000001 (float noise) at 2. */
function toTokens(amount: number): number {
  return Math.max(1, Math.ceil(amount - 1e-9));
}

function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.ceil(n) : 0;
}

function asTextModel(model: ModelDefinition): TextModel {
  if (model.category !== 'text') throw new TypeError(`${model.slug} is not a text model`);
  return model;
}

// ---------- text ----------

/**
 * Price of a finished chat call from its real usage: cache reads and writes at their rates, the rest of the prompt at
 * the input rate. Never below the model's minimum; bad numbers count as 0, and cache counts never exceed the prompt.
 */
export function priceChatUsage(model: ModelDefinition, usage: ChatUsageCount): number {
  const pricing = pricingOf(asTextModel(model));
  const prompt = count(usage.promptTokens);
  const cached = Math.min(prompt, count(usage.cachedTokens ?? 0));
  const written = Math.min(prompt - cached, count(usage.cacheWriteTokens ?? 0));
  const raw =
    ((prompt - cached - written) * pricing.inputPer1k +
      cached * pricing.cachedInputPer1k +
      written * pricing.cacheWritePer1k +
      count(usage.completionTokens) * pricing.outputPer1k) /
    1000;
  return Math.max(pricing.min, toTokens(raw + toolUseTokens(model, usage.toolUses)));
}

/** Hosted tool runs in tokens: the vendor's price per use under the rule (a tool it lists no price for costs nothing). */
function toolUseTokens(model: ModelDefinition, uses: ChatUsageCount['toolUses']): number {
  let tokens = 0;
  for (const [tool, n] of Object.entries(uses ?? {}) as [HostedTool, number][]) {
    const price = toolUsePrice(model.provider, tool);
    if (price) tokens += count(n) * ruleTokens(price.perUse);
  }
  return tokens;
}

/** A text model's rates per million model tokens (the Models page and the Model object show them). */
export function perMillionPrices(model: TextModel): PerMillionPrices {
  const { pricing } = model;
  const perMillion = (per1k: number) => Math.round(per1k * 1000 * 100) / 100;
  return {
    input: perMillion(pricing.inputPer1k),
    cached_input: perMillion(pricing.cachedInputPer1k),
    output: perMillion(pricing.outputPer1k),
  };
}

/** `max_tokens` used when the request gives none. */
export function defaultMaxTokens(model: ModelDefinition): number {
  return asTextModel(model).config.default_max_tokens;
}

/**
 * The `max_tokens` to send upstream: the requested value capped at the model's output limit, or the
 * default when absent/invalid. Send this same value upstream so usage can never exceed the reservation.
 */
export function resolveMaxTokens(model: ModelDefinition, requested?: number | null): number {
  const { config } = asTextModel(model);
  if (requested === undefined || requested === null || !Number.isFinite(requested) || requested < 1) {
    return config.default_max_tokens;
  }
  return Math.min(Math.floor(requested), config.max_output_tokens);
}

/** Tokens to reserve before a chat call: the price of the prompt estimate plus a full `max_tokens` answer. */
export function estimateChatReservation(model: ModelDefinition, promptTokens: number, maxTokens: number): number {
  return priceChatUsage(model, { promptTokens, completionTokens: resolveMaxTokens(model, maxTokens) });
}

export interface EstimateMessage {
  role: string;
  content: string | ReadonlyArray<{ type: string; text?: string }>;
}

/**
 * Cheap, conservative prompt size: ASCII at 4 characters per token, every other character a whole token
 * (Cyrillic and CJK tokenise far worse than English), plus framing per message. Images count
 * IMAGE_PART_TOKENS each. Over-estimating only holds a little more balance until the call is settled.
 */
export function estimatePromptTokens(messages: readonly EstimateMessage[]): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) {
    total += MESSAGE_OVERHEAD_TOKENS;
    if (typeof message.content === 'string') {
      total += textTokens(message.content);
      continue;
    }
    for (const part of message.content) {
      total += typeof part.text === 'string' ? textTokens(part.text) : part.type === 'text' ? 0 : IMAGE_PART_TOKENS;
    }
  }
  return total;
}

/**
 * About four ASCII characters a token, one token for any other code point. Counted by code unit, not with a
 * string iterator: a long prompt (tens of megabytes) is counted in milliseconds, not hundreds.
 */
function textTokens(text: string): number {
  // Every UTF-16 unit ASCII exactly when the UTF-8 form has one byte per unit (measured natively).
  if (Buffer.byteLength(text, 'utf8') === text.length) return Math.ceil(text.length / 4);
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 128) {
      ascii++;
      continue;
    }
    other++;
    // A surrogate pair is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return Math.ceil(ascii / 4) + other;
}

// ---------- media, tools, speech-to-text, music ----------

/** Whether a `WxH` size or `W:H` aspect ratio is not square. */
export function isNonSquareSize(size: string): boolean {
  const parts = size.split(/[x:]/);
  return parts.length === 2 && parts[0] !== parts[1];
}

/**
 * The exact tokens a generation reserves (and, on success, spends). Missing values take the model's
 * defaults; values the model does not offer throw ParamError. Text models are priced with
 * `estimateChatReservation` / `priceChatUsage` instead.
 */
export function quoteGeneration(model: ModelDefinition, params: PriceParams = {}): number {
  switch (model.category) {
    case 'text':
      throw new TypeError(`${model.slug} is a text model: use estimateChatReservation / priceChatUsage`);
    case 'image': {
      const size = params.size ?? model.config.default_size;
      const quality = params.quality ?? 'standard';
      if (!model.config.sizes.includes(size)) {
        throw new ParamError('size', `size must be one of: ${model.config.sizes.join(', ')}`);
      }
      if (!model.config.qualities.includes(quality)) {
        throw new ParamError('quality', `quality must be one of: ${model.config.qualities.join(', ')}`);
      }
      const p = pricingOf(model);
      const perImage = (isNonSquareSize(size) ? p.nonSquare : p.square)[quality];
      if (perImage === undefined) throw new ParamError('quality', `quality must be one of: ${model.config.qualities.join(', ')}`);
      return toTokens(perImage);
    }
    case 'video': {
      const p = pricingOf(model);
      const seconds = params.durationSeconds ?? p.defaultSeconds;
      if (!p.allowedSeconds.includes(seconds)) {
        throw new ParamError('duration', `duration must be one of: ${p.allowedSeconds.join(', ')} (seconds)`);
      }
      return toTokens(p.perSecond * seconds);
    }
    case 'tts': {
      const p = pricingOf(model);
      return priceCharacters(p.tokensPer1000, p.min, characterCount(params.prompt ?? ''));
    }
    case 'stt':
    case 'music':
    case 'tool':
      return pricingOf(model).tokens;
  }
}

function priceCharacters(tokensPer1000: number, min: number, characters: number): number {
  return Math.max(min, toTokens((characters * tokensPer1000) / 1000));
}

/** Cheapest and dearest price over every option the model accepts (`min_token_cost`, `max_token_cost`). */
export function priceRange(model: ModelDefinition): { min: number; max: number } {
  switch (model.category) {
    case 'text': {
      const { max_context, max_output_tokens } = model.config;
      const max = priceChatUsage(model, {
        promptTokens: Math.max(0, max_context - max_output_tokens),
        completionTokens: max_output_tokens,
      });
      return { min: pricingOf(model).min, max };
    }
    case 'image':
      return minMax(
        model.config.sizes.flatMap((size) => model.config.qualities.map((quality) => quoteGeneration(model, { size, quality }))),
      );
    case 'video':
      return minMax(pricingOf(model).allowedSeconds.map((durationSeconds) => quoteGeneration(model, { durationSeconds })));
    case 'tts': {
      const { tokensPer1000, min } = pricingOf(model);
      return { min: priceCharacters(tokensPer1000, min, 1), max: priceCharacters(tokensPer1000, min, MAX_PROMPT_LENGTH) };
    }
    case 'stt':
    case 'music':
    case 'tool': {
      const { tokens } = pricingOf(model);
      return { min: tokens, max: tokens };
    }
  }
}

/** The base price shown as `token_cost`: default options, an ordinary chat, or TYPICAL_TTS_CHARACTERS of speech. */
export function baseTokenCost(model: ModelDefinition): number {
  switch (model.category) {
    case 'text':
      return priceChatUsage(model, TYPICAL_CHAT_USAGE);
    case 'tts': {
      const { tokensPer1000, min } = pricingOf(model);
      return priceCharacters(tokensPer1000, min, TYPICAL_TTS_CHARACTERS);
    }
    default:
      return quoteGeneration(model);
  }
}

function minMax(prices: number[]): { min: number; max: number } {
  return { min: Math.min(...prices), max: Math.max(...prices) };
}
