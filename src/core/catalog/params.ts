// Validation and normalisation of the POST /api/v2/generate body for one catalog model.
// zod checks the shape; the model's config decides which options apply. An option the model does
// not take is an error naming the field (never silently ignored, so a client learns its request
// was not what it meant). The top-level `format` (image output format) is the one exception: it is
// accepted everywhere and only used for image results.
import { z } from 'zod';
import { resolveModel } from './lifecycle';
import type { CommandInput, CommandInputs, GenerateCommand } from './command';
import { ParamError } from './errors';
import { MAX_PROMPT_LENGTH, MAX_SEED, characterCount } from './limits';
import {
  IMAGE_FORMATS,
  IMAGE_QUALITIES,
  IMAGE_STYLES,
  type ImageField,
  type ImageFormat,
  type ImageQuality,
  type ImageStyle,
  type ModelDefinition,
  type TtsModel,
} from './types';

export { ParamError } from './errors';
export { MAX_PROMPT_LENGTH } from './limits';

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

export interface NormalizedParams {
  /** Empty only for tools that need no prompt. */
  prompt: string;
  negativePrompt?: string;
  /** `WxH` or an aspect ratio from the model's set; absent for models without a size choice. */
  size?: string;
  /** Output format of image results. */
  format: ImageFormat;
  quality: ImageQuality;
  style?: ImageStyle;
  seed?: number;
  /** Music (15..120, default 30) and video (the model's durations). */
  durationSeconds?: number;
  voiceId?: string;
  speed?: number;
  /** Speech and music output format, e.g. `mp3`. */
  audioFormat?: string;
  /** Upscale factor (2 or 4, default 2). */
  scale?: number;
}

/** Files a door received for image fields of the body (an upload, a Telegram photo), by field. */
export type AttachedFiles<F> = Partial<Record<ImageField, F>>;

/** Shape check only. @throws ParamError */
export function parseGenerateBody(raw: unknown): GenerateBody {
  const result = generateBodySchema.safeParse(raw);
  if (!result.success) throw paramErrorFromZod(result.error);
  return result.data;
}

/**
 * The /generate body (shape check, model lookup, per-model rules) as a command, with `files` standing in for the
 * image fields the door received as files. A retired model resolves to its replacement (`replaced`).
 * @throws ParamError, UnknownModelError, ModelRetiredError
 */
export function parseGenerateCommand<F = never>(raw: unknown, files: AttachedFiles<F> = {}): GenerateCommand<F> {
  return buildGenerateCommand(parseGenerateBody(raw), files);
}

/** parseGenerateCommand on an already shape-checked body. @throws ParamError, UnknownModelError */
export function buildGenerateCommand<F = never>(body: GenerateBody, files: AttachedFiles<F> = {}): GenerateCommand<F> {
  const { model, replacedFrom, shutdownAt } = resolveModel(body.model);
  const replaced = replacedFrom !== undefined ? { from: replacedFrom, shutdownAt: shutdownAt ?? null } : undefined;
  return { model, ...normalizeGenerate(model, body, files), ...(replaced ? { replaced } : {}) };
}

function paramErrorFromZod(error: z.ZodError): ParamError {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path, issue.keys[0]].join('.');
    return new ParamError(field, `Unknown field: ${field}`);
  }
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return new ParamError(field, `${field}: ${issue.message}`);
}

function unsupported(field: string, model: ModelDefinition): ParamError {
  return new ParamError(field, `${field} is not supported by ${model.slug}`);
}

function given<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** Per-model rules on an already shape-checked body (the price check's view: options only). @throws ParamError */
export function normalizeGenerateParams(model: ModelDefinition, body: GenerateBody): NormalizedParams {
  return normalizeGenerate(model, body, {}).params;
}

function normalizeGenerate<F>(
  model: ModelDefinition,
  body: GenerateBody,
  files: AttachedFiles<F>,
): { params: NormalizedParams; inputs: CommandInputs<F> } {
  if (model.category === 'text') {
    throw new ParamError('model', `${model.slug} is a text model: use POST /v1/chat/completions or POST /api/v2/generate/stream`);
  }
  if (model.category === 'stt') {
    throw new ParamError('model', `${model.slug} is a speech-to-text model: use POST /api/v2/stt`);
  }
  const p = body.params ?? {};
  const out: NormalizedParams = {
    prompt: normalizePrompt(model, body.prompt),
    format: body.format ?? 'webp',
    quality: body.quality ?? 'standard',
  };
  const inputs: CommandInputs<F> = { images: [] };
  const input = (field: ImageField, url: string | null | undefined): CommandInput<F> | undefined => {
    const file = files[field];
    if (file !== undefined && given(url)) throw new ParamError(field, `${field}: give a URL or a file, not both`);
    if (file !== undefined) return { field, file };
    return given(url) ? { field, url } : undefined;
  };

  // negative_prompt (an empty string counts as not given)
  if (given(body.negative_prompt) && body.negative_prompt.trim() !== '') {
    const supported = (model.category === 'image' || model.category === 'video') && model.config.supports_negative_prompt;
    if (!supported) throw unsupported('negative_prompt', model);
    if (characterCount(body.negative_prompt) > MAX_PROMPT_LENGTH) {
      throw new ParamError('negative_prompt', `negative_prompt is longer than ${MAX_PROMPT_LENGTH} characters`, 'too_long');
    }
    out.negativePrompt = body.negative_prompt;
  }

  // size
  const sizes = model.category === 'image' || model.category === 'video' ? model.config.sizes : [];
  if (given(body.size)) {
    if (sizes.length === 0) throw unsupported('size', model);
    // The spec's default size on an aspect-ratio model means the square ratio.
    const size = body.size === '1024x1024' && !sizes.includes(body.size) && sizes.includes('1:1') ? '1:1' : body.size;
    if (!sizes.includes(size)) {
      throw new ParamError('size', `size "${body.size}" is not available for ${model.slug}; allowed: ${sizes.join(', ')}`);
    }
    out.size = size;
  } else if ((model.category === 'image' || model.category === 'video') && model.config.default_size) {
    out.size = model.config.default_size;
  }

  // quality, style, seed
  if (out.quality === 'hd' && !(model.category === 'image' && model.config.qualities.includes('hd'))) {
    throw new ParamError('quality', `quality "hd" is not supported by ${model.slug}`);
  }
  if (given(body.style)) {
    if (!(model.category === 'image' && model.config.styles.includes(body.style))) throw unsupported('style', model);
    out.style = body.style;
  }
  if (given(body.seed)) {
    if (model.category !== 'image' && model.category !== 'video' && model.category !== 'music') throw unsupported('seed', model);
    out.seed = body.seed;
  }

  // duration
  if (model.category === 'video') {
    const { durations, default_duration } = model.config;
    const seconds = body.duration ?? default_duration;
    if (!durations.includes(seconds)) {
      throw new ParamError('duration', `duration must be one of: ${durations.join(', ')} (seconds) for ${model.slug}`);
    }
    out.durationSeconds = seconds;
  } else if (model.category === 'music') {
    const { min_duration, max_duration, default_duration } = model.config;
    const seconds = body.duration ?? default_duration;
    if (seconds < min_duration || seconds > max_duration) {
      throw new ParamError('duration', `duration must be between ${min_duration} and ${max_duration} seconds`);
    }
    out.durationSeconds = seconds;
  } else if (given(body.duration)) {
    throw new ParamError('duration', `duration applies only to music and video models, not ${model.slug}`);
  }

  // input images
  const top = input('image_url', body.image_url);
  const nested = input('params.image_url', p.image_url);
  if (top && nested && !('url' in top && 'url' in nested && top.url === nested.url)) {
    throw new ParamError('params.image_url', 'give the input image once: image_url or params.image_url');
  }
  const single = top ?? nested;
  const singleField = top ? 'image_url' : 'params.image_url';
  // A tool takes the input images its catalog entry names (`image_url` stands for `params.image_url`).
  const toolFields: readonly ImageField[] = model.category === 'tool' ? model.rules.inputFields : [];
  const raw: Record<ImageField, string | null | undefined> = {
    image_url: body.image_url,
    'params.image_url': p.image_url,
    'params.source_image_url': p.source_image_url,
    'params.target_image_url': p.target_image_url,
    'params.mask_url': p.mask_url,
  };
  for (const field of ['params.source_image_url', 'params.target_image_url'] as const) {
    if (input(field, raw[field]) && !toolFields.includes(field)) throw unsupported(field, model);
  }
  if (model.category === 'image' || model.category === 'video') {
    const mode = model.config.image_input;
    if (single !== undefined && mode === 'none') throw unsupported(singleField, model);
    if (single === undefined && mode === 'required') {
      throw new ParamError('image_url', `${model.slug} needs an input image: image_url`);
    }
    if (single !== undefined) inputs.images = [single];
  } else if (model.category === 'tool') {
    if (toolFields.includes('params.image_url')) {
      if (single === undefined) {
        throw new ParamError('params.image_url', `${model.slug} needs an input image: params.image_url`);
      }
      inputs.images = [single];
    } else {
      if (single !== undefined) throw unsupported(singleField, model);
      inputs.images = toolFields.map((field) => {
        const image = input(field, raw[field]);
        if (!image) throw new ParamError(field, `${model.slug} needs ${toolFields.join(' and ')}`);
        return image;
      });
    }
  } else if (single !== undefined) {
    throw unsupported(singleField, model);
  }

  // mask (inpaint)
  const mask = input('params.mask_url', raw['params.mask_url']);
  if (mask) {
    if (!(model.category === 'tool' && model.config.supports_mask)) throw unsupported('params.mask_url', model);
    inputs.mask = mask;
  }

  // scale (upscale)
  if (model.category === 'tool' && model.config.scales.length > 0) {
    const scale = p.scale ?? model.config.scales[0]!;
    if (!model.config.scales.includes(scale)) {
      throw new ParamError('params.scale', `params.scale must be one of: ${model.config.scales.join(', ')}`);
    }
    out.scale = scale;
  } else if (given(p.scale)) {
    throw unsupported('params.scale', model);
  }

  // speech and music options
  if (model.category === 'tts') {
    applySpeechOptions(model, p, out);
  } else {
    if (given(p.voice_id)) throw unsupported('params.voice_id', model);
    if (given(p.speed)) throw unsupported('params.speed', model);
    if (model.category === 'music') {
      out.audioFormat = pickAudioFormat(model.config.audio_formats, model.config.default_audio_format, p.format);
    } else if (given(p.format)) {
      throw unsupported('params.format', model);
    }
  }

  return { params: out, inputs };
}

function normalizePrompt(model: ModelDefinition, prompt: string | null | undefined): string {
  const text = prompt ?? '';
  const required = model.category !== 'tool' || model.config.requires_prompt;
  if (required && text.trim() === '') throw new ParamError('prompt', 'prompt is required', 'required');
  if (characterCount(text) > MAX_PROMPT_LENGTH) {
    throw new ParamError('prompt', `prompt is longer than ${MAX_PROMPT_LENGTH} characters`, 'too_long');
  }
  return text;
}

/** ElevenLabs-style voice ids: letters and digits (with `_`/`-` for custom ids). */
const VENDOR_VOICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

function applySpeechOptions(model: TtsModel, p: NonNullable<GenerateBody['params']>, out: NormalizedParams): void {
  const { config } = model;
  const voice = p.voice_id ?? config.default_voice;
  if (config.voices ? !config.voices.includes(voice) : !VENDOR_VOICE_ID.test(voice)) {
    throw new ParamError(
      'params.voice_id',
      config.voices ? `params.voice_id must be one of: ${config.voices.join(', ')}` : 'params.voice_id is not a valid voice id',
    );
  }
  out.voiceId = voice;
  if (given(p.speed)) {
    if (!config.speed) throw unsupported('params.speed', model);
    if (p.speed < config.speed.min || p.speed > config.speed.max) {
      throw new ParamError('params.speed', `params.speed must be between ${config.speed.min} and ${config.speed.max}`);
    }
    out.speed = p.speed;
  }
  out.audioFormat = pickAudioFormat(config.audio_formats, config.default_audio_format, p.format);
}

function pickAudioFormat(allowed: string[], fallback: string, requested: string | null | undefined): string {
  const format = requested ?? fallback;
  if (!allowed.includes(format)) {
    throw new ParamError('params.format', `params.format must be one of: ${allowed.join(', ')}`);
  }
  return format;
}
