// The POST /api/v2/generate body: its zod schema (also the OpenAPI document's), and its translation into the
// core's GenerateRequest and back (a schedule shows the body it runs).
import { z } from 'zod';
import { commandFromRequest, type GenerateRequest, type ImageSource } from '../../core/catalog/params';
import type { GenerateCommand } from '../../core/catalog/command';
import { ParamError } from '../../core/catalog/errors';
import { MAX_SEED } from '../../core/catalog/limits';
import type { PriceRequest } from '../../core/payments/price-check';
import { IMAGE_FIELDS, IMAGE_FORMATS, IMAGE_QUALITIES, IMAGE_STYLES, type ImageField } from '../../core/catalog/types';
import { parseInput } from '../middleware/validation';

/** Input images: a public http(s) URL, a result URL of this service, or a base64 `data:image/...` URI. */
function isAcceptedImageUrl(value: string): boolean {
  if (/^data:image\/[a-z0-9.+-]+;base64,/i.test(value)) return true;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const imageUrl = z.string().trim().min(1).refine(isAcceptedImageUrl, { message: 'must be an http(s) URL or a data:image/...;base64 URI' });

// `null` is accepted as "not given" throughout: many clients serialise absent options that way.
const paramsSchema = z.strictObject({
  voice_id: z.string().trim().min(1).max(128).nullish(),
  speed: z.number().nullish(),
  format: z.string().trim().toLowerCase().min(1).max(16).nullish(),
  image_url: imageUrl.nullish(),
  mask_url: imageUrl.nullish(),
  scale: z.number().int().nullish(),
  source_image_url: imageUrl.nullish(),
  target_image_url: imageUrl.nullish(),
});

export const generateBodySchema = z.strictObject({
  model: z.string().trim().min(1, 'model is required'),
  fallbacks: z
    .array(z.string().trim().min(1, 'a model slug must not be empty'))
    .min(1)
    .max(5)
    .nullish()
    .describe(
      "models to run instead, in order, when `model` cannot serve before its first byte (an outage, an overload, a retirement); each takes the same options. The generation's `model_slug` names the one that served, billed at its price",
    ),
  prompt: z.string().nullish(),
  negative_prompt: z.string().nullish(),
  size: z.string().trim().toLowerCase().nullish(),
  format: z.enum(IMAGE_FORMATS).nullish(),
  quality: z.enum(IMAGE_QUALITIES).nullish(),
  style: z.enum(IMAGE_STYLES).nullish(),
  seed: z.number().int().min(0).max(MAX_SEED).nullish(),
  image_url: imageUrl.nullish(),
  duration: z.number().int().nullish(),
  params: paramsSchema.nullish(),
});

export type GenerateBody = z.infer<typeof generateBodySchema>;

/**
 * POST /models/{slug}/calculate-price: the generate body (its `model`, when given, must be the slug), plus
 * `max_tokens` for text models.
 */
export const priceCheckBodySchema = generateBodySchema.extend({
  model: z.string().trim().min(1).optional().describe('optional; when given it must equal the slug in the path'),
  max_tokens: z.number().int().min(1).max(10_000_000).nullish(),
});

export function priceRequestFromBody(body: z.infer<typeof priceCheckBodySchema>): PriceRequest {
  const { model, max_tokens: maxTokens, ...rest } = body;
  return { ...optionsFromBody(rest), model, maxTokens: defined(maxTokens) };
}

/** Files the door received for image fields of the body (an upload), by field. */
export type AttachedFiles<F> = Partial<Record<ImageField, F>>;

/** Shape check only. @throws ApiError 400 validation_error naming the field */
export function parseGenerateBody(raw: unknown): GenerateBody {
  return parseInput(generateBodySchema, raw, 'body');
}

function defined<T>(value: T | null | undefined): T | undefined {
  return value ?? undefined;
}

type OptionsBody = Omit<GenerateBody, 'model' | 'fallbacks'>;

function imageUrlsOf(body: OptionsBody): Record<ImageField, string | undefined> {
  const p = body.params ?? {};
  return {
    image_url: defined(body.image_url),
    'params.image_url': defined(p.image_url),
    'params.source_image_url': defined(p.source_image_url),
    'params.target_image_url': defined(p.target_image_url),
    'params.mask_url': defined(p.mask_url),
  };
}

/** A shape-checked body (with `files` for the image fields received as files) as the core's request. @throws ParamError */
export function requestFromBody<F = never>(body: GenerateBody, files: AttachedFiles<F> = {}): GenerateRequest<F> {
  const { fallbacks, ...options } = body;
  return { model: body.model, ...(fallbacks?.length ? { fallbacks } : {}), ...optionsFromBody(options, files) };
}

function optionsFromBody<F>(body: OptionsBody, files: AttachedFiles<F> = {}): Omit<GenerateRequest<F>, 'model'> {
  const p = body.params ?? {};
  const urls = imageUrlsOf(body);
  const images: Partial<Record<ImageField, ImageSource<F>>> = {};
  for (const field of IMAGE_FIELDS) {
    const file = files[field];
    const url = urls[field];
    if (file !== undefined && url !== undefined) throw new ParamError(field, `${field}: give a URL or a file, not both`);
    if (file !== undefined) images[field] = { file };
    else if (url !== undefined) images[field] = { url };
  }
  // Undefined entries are "not given" in the core and vanish from stored JSON.
  return {
    prompt: defined(body.prompt),
    negativePrompt: defined(body.negative_prompt),
    size: defined(body.size),
    format: defined(body.format),
    quality: defined(body.quality),
    style: defined(body.style),
    seed: defined(body.seed),
    duration: defined(body.duration),
    voiceId: defined(p.voice_id),
    speed: defined(p.speed),
    audioFormat: defined(p.format),
    scale: defined(p.scale),
    images,
  };
}

/**
 * The /generate body (shape check, model lookup, per-model rules) as a command, with `files` standing in for the
 * image fields the door received as files. @throws ApiError 400, ParamError, UnknownModelError, ModelRetiredError
 */
export function parseGenerateCommand<F = never>(raw: unknown, files: AttachedFiles<F> = {}): GenerateCommand<F> {
  return commandFromRequest(requestFromBody(parseGenerateBody(raw), files));
}

/** A URL-only request as the body that asks for it (what a schedule shows it runs). */
export function bodyFromRequest(request: GenerateRequest): GenerateBody {
  const url = (field: ImageField) => {
    const source = request.images?.[field];
    return source && 'url' in source ? source.url : undefined;
  };
  const params = {
    voice_id: request.voiceId,
    speed: request.speed,
    format: request.audioFormat,
    scale: request.scale,
    image_url: url('params.image_url'),
    mask_url: url('params.mask_url'),
    source_image_url: url('params.source_image_url'),
    target_image_url: url('params.target_image_url'),
  };
  // Undefined entries vanish when the body is sent as JSON.
  return {
    model: request.model,
    fallbacks: request.fallbacks,
    prompt: request.prompt,
    negative_prompt: request.negativePrompt,
    size: request.size,
    format: request.format,
    quality: request.quality,
    style: request.style,
    seed: request.seed,
    image_url: url('image_url'),
    duration: request.duration,
    params: Object.values(params).some((value) => value !== undefined) ? params : undefined,
  };
}
