import { z } from 'zod';
import {
  estimateChatReservation,
  estimatePromptTokens,
  generateBodySchema,
  type GenerateBody,
  type ModelDefinition,
  normalizeGenerateParams,
  ParamError,
  priceRange,
  quoteGeneration,
  requireModel,
  resolveMaxTokens,
} from '../catalog';

/**
 * POST /models/{slug}/calculate-price: the generate body (its `model`, when given, must be the slug), plus
 * `max_tokens` for text models.
 */
export const priceCheckBodySchema = generateBodySchema.extend({
  model: z.string().trim().min(1).optional().describe('optional; when given it must equal the slug in the path'),
  max_tokens: z.number().int().min(1).max(10_000_000).nullish(),
});

export type PriceCheckBody = z.infer<typeof priceCheckBodySchema>;

export interface PriceQuoteView {
  model_slug: string;
  /** What generating with exactly these parameters reserves (and, for media, spends). */
  tokens: number;
  min_token_cost: number;
  max_token_cost: number;
}

const MEDIA_FIELDS = ['negative_prompt', 'size', 'quality', 'style', 'seed', 'image_url', 'duration', 'params'] as const;

function rejectMediaFields(model: ModelDefinition, body: PriceCheckBody): void {
  for (const field of MEDIA_FIELDS) {
    if (body[field] !== undefined && body[field] !== null) throw new ParamError(field, `${field} is not supported by ${model.slug}`);
  }
}

/**
 * The price of one request, validated exactly as generate validates it. Text models answer the reservation
 * for the prompt and `max_tokens` (the charge settles to real usage, never above it).
 * @throws UnknownModelError, ParamError
 */
export function quotePrice(slug: string, body: PriceCheckBody): PriceQuoteView {
  const model = requireModel(slug);
  if (body.model !== undefined && body.model !== model.slug) {
    throw new ParamError('model', `model is ${body.model} but the path names ${model.slug}: they must be the same`);
  }
  let tokens: number;
  if (model.category === 'text') {
    rejectMediaFields(model, body);
    const promptTokens = estimatePromptTokens([{ role: 'user', content: body.prompt ?? '' }]);
    tokens = estimateChatReservation(model, promptTokens, resolveMaxTokens(model, body.max_tokens));
  } else if (model.category === 'stt') {
    rejectMediaFields(model, body);
    if (body.prompt) throw new ParamError('prompt', `prompt is not used by ${model.slug}`);
    tokens = quoteGeneration(model);
  } else {
    if (body.max_tokens !== undefined && body.max_tokens !== null) {
      throw new ParamError('max_tokens', `max_tokens applies only to text models, not ${model.slug}`);
    }
    const { max_tokens: _unused, model: _slug, ...rest } = body;
    const generateBody: GenerateBody = { ...rest, model: model.slug };
    tokens = quoteGeneration(model, normalizeGenerateParams(model, generateBody));
  }
  const range = priceRange(model);
  return { model_slug: model.slug, tokens, min_token_cost: range.min, max_token_cost: range.max };
}
