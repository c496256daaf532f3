// OpenAI's Images API requests (POST /v1/images/generations, JSON; POST /v1/images/edits, multipart) read as the
// core's GenerateRequest for one catalog model.
import { z } from 'zod';
import { resolveModel } from '../../../core/catalog/lifecycle';
import { listModels } from '../../../core/catalog/catalog';
import { ParamError } from '../../../core/catalog/errors';
import type { FitKey } from '../../../core/catalog/fit';
import type { GenerateRequest } from '../../../core/catalog/params';
import type { ImageQuality, ModelDefinition } from '../../../core/catalog/types';
import { fallbackModels, fallbacksOf } from '../fallback-models';
import type { OptionNames } from './run';

export const MAX_IMAGES = 10;

/** What each core option is called in the Images API. */
export const IMAGE_NAMES: OptionNames = { size: 'size', quality: 'quality', style: 'style', seed: 'seed' };

/** /api/v2 names of the options a vendor may leave out, as the Images API calls them. */
export const IMAGE_VENDOR_NAMES: Readonly<Record<string, string>> = {
  quality: 'quality',
  style: 'style',
  seed: 'seed',
  negative_prompt: 'negative_prompt',
  'params.mask_url': 'mask',
};

const optional = <T extends z.ZodType>(schema: T) => schema.nullish();

/** The options both routes take (values as OpenAI documents them; the JSON route's numbers, the form's strings). */
function imageOptions(number: z.ZodType<number>) {
  return {
    prompt: z.string().describe('what to draw, or the change to make; required, not empty'),
    model: optional(z.string().trim().min(1)).describe('a catalog image model (for edits: one that edits); default: the first Starter one'),
    n: optional(number.pipe(z.number().int().min(1).max(MAX_IMAGES))).describe(`1 to ${MAX_IMAGES} images, each its own generation`),
    size: optional(z.string().trim().toLowerCase().max(32)).describe(
      'WxH or W:H; `auto` (or none) is the model’s default. A size of the model’s shape is used as it; a size only other image models offer gives way to the model’s nearest one (named in X-Ignored-Parameters); one that no catalog model offers is a 400',
    ),
    quality: optional(z.enum(['standard', 'hd', 'low', 'medium', 'high', 'auto'])).describe(
      '`hd` and `high` ask for the model’s high quality (where it has one); `low` is not offered and gives way to standard',
    ),
    response_format: optional(z.enum(['url', 'b64_json'])).describe('default b64_json; `url` is the result file of this service'),
    output_format: optional(z.enum(['png', 'jpeg', 'webp'])).describe('default png'),
    background: optional(z.enum(['transparent', 'opaque', 'auto'])).describe('`transparent` is not offered by the image models: ignored'),
    output_compression: optional(number.pipe(z.number().int().min(0).max(100))).describe('ignored'),
    partial_images: optional(number.pipe(z.number().int().min(0).max(3))).describe('ignored'),
    stream: optional(z.union([z.boolean(), z.enum(['true', 'false'])])).describe('streaming is not offered: `true` is a 400'),
    user: optional(z.string().max(256)).describe('a label: ignored'),
    safety_identifier: optional(z.string().max(256)).describe('a label: ignored'),
  };
}

const jsonNumber = z.number();
const formNumber = z
  .string()
  .trim()
  .regex(/^-?\d+(\.\d+)?$/, 'must be a number')
  .transform(Number);

export const imageGenerationBody = z.strictObject({
  ...imageOptions(jsonNumber),
  models: fallbackModels.nullish(),
  style: optional(z.enum(['vivid', 'natural'])).describe('for models that have styles; elsewhere ignored'),
  moderation: optional(z.enum(['low', 'auto'])).describe('ignored'),
  complexity: optional(z.enum(['low', 'medium', 'high'])).describe('ignored'),
  frame_count: optional(z.number().int()).describe('ignored'),
  frame_duration_ms: optional(z.number().int()).describe('ignored'),
});
export type ImageGenerationBody = z.infer<typeof imageGenerationBody>;

/** The text fields of the edits form (the files `image`, `image[]` and `mask` are read apart). */
export const imageEditFields = z.strictObject({
  ...imageOptions(formNumber),
  input_fidelity: optional(z.enum(['high', 'low'])).describe('ignored'),
});
export type ImageEditFields = z.infer<typeof imageEditFields>;

/** The options common to both routes that no image model takes (labels, streaming details), by their wire names. */
export function ignoredLabels(body: Record<string, unknown>): string[] {
  const always = [
    'output_compression',
    'partial_images',
    'user',
    'safety_identifier',
    'moderation',
    'complexity',
    'frame_count',
    'frame_duration_ms',
    'input_fidelity',
  ];
  const ignored = always.filter((name) => body[name] !== undefined && body[name] !== null);
  if (body.background === 'transparent') ignored.push('background');
  if (body.quality === 'low') ignored.push('quality');
  return ignored;
}

/** @throws ParamError 400 for `stream: true` */
export function refuseStreaming(body: { stream?: boolean | string | null }): void {
  if (body.stream === true || body.stream === 'true') {
    throw new ParamError('stream', 'stream: streamed image generation is not offered; send the request without stream');
  }
}

export function coreQuality(quality: ImageGenerationBody['quality']): ImageQuality | undefined {
  return quality === 'hd' || quality === 'high' ? 'hd' : undefined;
}

/** Whether a model edits images: an image model that takes an input image, or an inpainting tool. */
export function editsImages(model: ModelDefinition): boolean {
  if (model.category === 'image') return model.config.image_input !== 'none';
  return model.category === 'tool' && model.rules.promptKind === 'edit';
}

/** The first Starter model that `fits`, else the first at all (catalog order). */
function defaultModel(fits: (m: ModelDefinition) => boolean): ModelDefinition {
  const candidates = listModels().filter(fits);
  return candidates.find((m) => m.minPlan === 'free') ?? candidates[0]!;
}

/** The model of a request (a retired one resolves to its replacement). @throws UnknownModelError, ParamError */
export function imageModelFor(slug: string | null | undefined, route: 'generations' | 'edits', withMask = false): ModelDefinition {
  const fits = route === 'generations' ? (m: ModelDefinition) => m.category === 'image' : editsImages;
  if (!slug) return defaultModel(route === 'edits' && withMask ? (m) => m.category === 'tool' && editsImages(m) : fits);
  const { model } = resolveModel(slug);
  if (!fits(model)) {
    const able = listModels()
      .filter(fits)
      .map((m) => m.slug);
    const what = route === 'generations' ? 'an image model' : 'a model that edits images';
    throw new ParamError('model', `${slug} is not ${what}; use one of: ${able.join(', ')}`);
  }
  return model;
}

/** The request options both routes share, in core terms. */
export function imageRequest<F>(slug: string, body: ImageGenerationBody | ImageEditFields): GenerateRequest<F> {
  const size = body.size && body.size !== 'auto' ? body.size : undefined;
  return {
    model: slug,
    ...('models' in body ? fallbacksOf(slug, body.models) : {}),
    prompt: body.prompt,
    size,
    quality: coreQuality(body.quality),
    format: body.output_format ?? 'png',
    ...('style' in body && body.style ? { style: body.style } : {}),
  };
}

export type { FitKey };
