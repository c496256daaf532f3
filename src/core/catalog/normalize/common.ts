// Checks every category shares: the prompt, the options a category does not take, sizes and audio formats.
import { ParamError } from '../errors';
import { MAX_PROMPT_LENGTH, characterCount } from '../limits';
import type { GenerateRequest, NormalizedParams } from '../request';
import type { ModelDefinition } from '../types';

export function unsupported(field: string, model: ModelDefinition): ParamError {
  return new ParamError(field, `${field} is not supported by ${model.slug}`);
}

/** The options a category may take, with the request field each is named by in errors, in checking order. */
const OPTION_FIELDS = {
  negativePrompt: 'negative_prompt',
  size: 'size',
  style: 'style',
  seed: 'seed',
  duration: 'duration',
  scale: 'params.scale',
  voiceId: 'params.voice_id',
  speed: 'params.speed',
  audioFormat: 'params.format',
} as const satisfies Partial<Record<keyof GenerateRequest, string>>;

export type OptionKey = keyof typeof OPTION_FIELDS;

/** A request's options, whatever its model. */
export type RequestOptions = Omit<GenerateRequest<unknown>, 'model'>;

export function isGiven(request: RequestOptions, key: OptionKey): boolean {
  const value = request[key];
  if (key === 'negativePrompt') return typeof value === 'string' && value.trim() !== '';
  return value !== undefined;
}

/** Refuses every option given that the model's category does not take. @throws ParamError */
export function rejectOptionsOtherThan(model: ModelDefinition, request: RequestOptions, taken: readonly OptionKey[]): void {
  for (const key of Object.keys(OPTION_FIELDS) as OptionKey[]) {
    if (taken.includes(key) || !isGiven(request, key)) continue;
    if (key === 'duration') throw new ParamError('duration', `duration applies only to music and video models, not ${model.slug}`);
    throw unsupported(OPTION_FIELDS[key], model);
  }
}

function checkedPrompt(model: ModelDefinition, prompt: string | undefined): string {
  const text = prompt ?? '';
  const required = model.category !== 'tool' || model.config.requires_prompt;
  if (required && text.trim() === '') throw new ParamError('prompt', 'prompt is required', 'required');
  if (characterCount(text) > MAX_PROMPT_LENGTH) {
    throw new ParamError('prompt', `prompt is longer than ${MAX_PROMPT_LENGTH} characters`, 'too_long');
  }
  return text;
}

/** Prompt, image output format and quality: every media and tool request has them. @throws ParamError */
export function baseParams(model: ModelDefinition, request: GenerateRequest<unknown>): NormalizedParams {
  const params: NormalizedParams = {
    prompt: checkedPrompt(model, request.prompt),
    format: request.format ?? 'webp',
    quality: request.quality ?? 'standard',
  };
  if (params.quality === 'hd' && !(model.category === 'image' && model.config.qualities.includes('hd'))) {
    throw new ParamError('quality', `quality "hd" is not supported by ${model.slug}`);
  }
  return params;
}

export function checkedNegativePrompt(model: ModelDefinition, request: GenerateRequest<unknown>, supported: boolean): string | undefined {
  if (!isGiven(request, 'negativePrompt')) return undefined;
  if (!supported) throw unsupported('negative_prompt', model);
  const text = request.negativePrompt!;
  if (characterCount(text) > MAX_PROMPT_LENGTH) {
    throw new ParamError('negative_prompt', `negative_prompt is longer than ${MAX_PROMPT_LENGTH} characters`, 'too_long');
  }
  return text;
}

/** The requested size from the model's set, else its default. @throws ParamError */
export function pickSize(
  model: ModelDefinition,
  sizes: readonly string[],
  fallback: string | null,
  requested: string | undefined,
): string | undefined {
  if (requested === undefined) return fallback ?? undefined;
  if (sizes.length === 0) throw unsupported('size', model);
  // The spec's default size on an aspect-ratio model means the square ratio.
  const size = requested === '1024x1024' && !sizes.includes(requested) && sizes.includes('1:1') ? '1:1' : requested;
  if (!sizes.includes(size)) {
    throw new ParamError('size', `size "${requested}" is not available for ${model.slug}; allowed: ${sizes.join(', ')}`);
  }
  return size;
}

export function pickAudioFormat(allowed: readonly string[], fallback: string, requested: string | undefined): string {
  const format = requested ?? fallback;
  if (!allowed.includes(format)) {
    throw new ParamError('params.format', `params.format must be one of: ${allowed.join(', ')}`);
  }
  return format;
}
