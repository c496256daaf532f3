import {
  estimateChatReservation,
  estimatePromptTokens,
  type GenerateRequest,
  IMAGE_FIELDS,
  type ModelDefinition,
  normalizeGenerateParams,
  ParamError,
  priceRange,
  quoteGeneration,
  requireModel,
  resolveMaxTokens,
} from '../catalog';
import { rejectOptionsOtherThan, unsupported } from '../catalog/normalize/common';

/** A generate request whose `model`, when given, must be the priced model, plus `maxTokens` for text models. */
export type PriceRequest = Omit<GenerateRequest, 'model'> & { model?: string; maxTokens?: number };

export interface PriceQuoteView {
  model_slug: string;
  /** What generating with exactly these parameters reserves (and, for media, spends). */
  tokens: number;
  min_token_cost: number;
  max_token_cost: number;
}

/** Text and speech-to-text models take none of the media options. @throws ParamError */
function rejectMediaOptions(model: ModelDefinition, request: PriceRequest): void {
  rejectOptionsOtherThan(model, request, []);
  if (request.quality !== undefined) throw unsupported('quality', model);
  const image = IMAGE_FIELDS.find((field) => request.images?.[field] !== undefined);
  if (image !== undefined) throw unsupported(image, model);
}

/**
 * The price of one request, validated exactly as generate validates it. Text models answer the reservation
 * for the prompt and `max_tokens` (the charge settles to real usage, never above it).
 * @throws UnknownModelError, ParamError
 */
export function quotePrice(slug: string, request: PriceRequest): PriceQuoteView {
  const model = requireModel(slug);
  if (request.model !== undefined && request.model !== model.slug) {
    throw new ParamError('model', `model is ${request.model} but the path names ${model.slug}: they must be the same`);
  }
  let tokens: number;
  if (model.category === 'text') {
    rejectMediaOptions(model, request);
    const promptTokens = estimatePromptTokens([{ role: 'user', content: request.prompt ?? '' }]);
    tokens = estimateChatReservation(model, promptTokens, resolveMaxTokens(model, request.maxTokens));
  } else if (model.category === 'stt') {
    rejectMediaOptions(model, request);
    if (request.prompt) throw new ParamError('prompt', `prompt is not used by ${model.slug}`);
    tokens = quoteGeneration(model);
  } else {
    if (request.maxTokens !== undefined) {
      throw new ParamError('max_tokens', `max_tokens applies only to text models, not ${model.slug}`);
    }
    tokens = quoteGeneration(model, normalizeGenerateParams(model, { ...request, model: model.slug }));
  }
  const range = priceRange(model);
  return { model_slug: model.slug, tokens, min_token_cost: range.min, max_token_cost: range.max };
}
