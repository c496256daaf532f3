// How the compatible surfaces (/v1: OpenAI's images, audio and video APIs) read a request for one model. Their
// clients send the vendor's own option values (OpenAI sizes, seconds, voices, formats), so a value is matched to what
// the model offers: an option the model does not take, or a value it does not offer while another model of its
// category does, gives way to the model's nearest value (or its default) and is named in `ignored`; a value that no
// model of the category offers is refused, named as the surface calls it. /api/v2/generate keeps its strict rules.
import { listModels } from './catalog';
import { ParamError } from './errors';
import type { GenerateRequest } from './params';
import type { Category, ModelDefinition, TtsModel } from './types';

/** The request options the fitting looks at, by their core names. */
export type FitKey = 'size' | 'quality' | 'style' | 'negativePrompt' | 'seed' | 'duration' | 'voiceId' | 'speed' | 'audioFormat' | 'scale';

/** The surface's name of each option, for refusals. */
export type FitNames = Readonly<Partial<Record<FitKey, string>>>;

export interface Fitted<F> {
  request: GenerateRequest<F>;
  /** Options left to the model's own value, in the order they were met. */
  ignored: FitKey[];
}

/** ElevenLabs voice ids (premade and custom alike) are 20 letters and digits. */
const VENDOR_VOICE_ID = /^[A-Za-z0-9]{20}$/;

/** Two aspect ratios within 2 % of each other are the same shape (1792x1024 is 16:9 as far as a crop goes). */
const RATIO_TOLERANCE = 0.02;

/** The aspect ratio of a `WxH` size or a `W:H` ratio; undefined when it is neither. */
export function aspectRatioOf(size: string): number | undefined {
  const m = /^\s*(\d{1,5})\s*[x:×]\s*(\d{1,5})\s*$/i.exec(size);
  if (!m) return undefined;
  const [w, h] = [Number(m[1]), Number(m[2])];
  return w > 0 && h > 0 ? w / h : undefined;
}

const sameShape = (a: number, b: number) => Math.abs(Math.log(a / b)) <= RATIO_TOLERANCE;
const isRatio = (size: string) => size.includes(':');

/** The size of `sizes` that is `requested`: itself, or (for a set of aspect ratios) the ratio of its shape. */
function offeredSize(sizes: readonly string[], requested: string): string | undefined {
  if (sizes.includes(requested)) return requested;
  const ratio = aspectRatioOf(requested);
  if (ratio === undefined || isRatio(requested)) return undefined;
  return sizes.find((s) => isRatio(s) && sameShape(aspectRatioOf(s)!, ratio));
}

/**
 * Whether some model of the category offers the size: as listed; or, where the category lists no pixel sizes at all
 * (video: aspect ratios), a `WxH` of a listed ratio's shape. Image models list pixel sizes, so an image `WxH` must be
 * one of them (a ratio model then makes it in its shape).
 */
function categoryOffersSize(category: Category, requested: string): boolean {
  const all = others(category).flatMap(sizesOf);
  if (all.includes(requested)) return true;
  if (all.some((s) => !isRatio(s)) || isRatio(requested)) return false;
  const ratio = aspectRatioOf(requested);
  return ratio !== undefined && all.some((s) => sameShape(aspectRatioOf(s)!, ratio));
}

/** The size of `sizes` closest in shape to `requested` (or the first). */
function nearestSize(sizes: readonly string[], requested: string): string | undefined {
  const ratio = aspectRatioOf(requested);
  if (ratio === undefined) return sizes[0];
  let best: string | undefined;
  let distance = Infinity;
  for (const s of sizes) {
    const d = Math.abs(Math.log(aspectRatioOf(s)! / ratio));
    if (d < distance) [best, distance] = [s, d];
  }
  return best;
}

function sizesOf(model: ModelDefinition): readonly string[] {
  return model.category === 'image' || model.category === 'video' ? model.config.sizes : [];
}

function durationsOf(model: ModelDefinition): readonly number[] {
  return model.category === 'video' ? model.config.durations : [];
}

function voiceOffered(model: TtsModel, voice: string): boolean {
  return model.config.voices ? model.config.voices.includes(voice) : VENDOR_VOICE_ID.test(voice);
}

function others(category: Category): readonly ModelDefinition[] {
  return listModels({ category });
}

/** Whether the model takes the option at all (not which values). */
function takes(model: ModelDefinition, key: FitKey): boolean {
  switch (key) {
    case 'negativePrompt':
      return (model.category === 'image' || model.category === 'video') && model.config.supports_negative_prompt;
    case 'size':
      return sizesOf(model).length > 0;
    case 'seed':
      return model.category === 'image' || model.category === 'video' || model.category === 'music';
    case 'style':
      return model.category === 'image' && model.config.styles.length > 0;
    case 'quality':
      return model.category === 'image' && model.config.qualities.includes('hd');
    case 'duration':
      return model.category === 'video' || model.category === 'music';
    case 'voiceId':
      return model.category === 'tts';
    case 'speed':
      return model.category === 'tts' && model.config.speed !== null;
    case 'audioFormat':
      return model.category === 'tts' || model.category === 'music';
    case 'scale':
      return model.category === 'tool' && model.config.scales.length > 0;
  }
}

/** Refuses a value no model of the category offers. @throws ParamError */
function refuseUnlessOffered(model: ModelDefinition, key: FitKey, value: string | number, names: FitNames): void {
  const field = names[key] ?? key;
  const category = others(model.category);
  let offered: boolean;
  let choices: string[];
  switch (key) {
    case 'size':
      offered = categoryOffersSize(model.category, String(value));
      choices = [...new Set(category.flatMap(sizesOf))];
      break;
    case 'duration':
      offered = category.some((m) => durationsOf(m).includes(Number(value)));
      choices = [...new Set(category.flatMap(durationsOf))].sort((a, b) => a - b).map(String);
      break;
    case 'voiceId':
      offered = category.some((m) => m.category === 'tts' && voiceOffered(m, String(value)));
      choices = [...new Set(category.flatMap((m) => (m.category === 'tts' ? (m.config.voices ?? []) : [])))];
      choices.push('a 20-character ElevenLabs voice id');
      break;
    case 'audioFormat':
      offered = category.some((m) => (m.category === 'tts' || m.category === 'music') && m.config.audio_formats.includes(String(value)));
      choices = [...new Set(category.flatMap((m) => (m.category === 'tts' || m.category === 'music' ? m.config.audio_formats : [])))];
      break;
    default:
      return;
  }
  if (!offered) {
    throw new ParamError(field, `${field} "${value}" is not offered by any ${model.category} model; offered: ${choices.join(', ')}`);
  }
}

/**
 * The request as `model` takes it: see the top of this file. `names` are the surface's names of the options, used in
 * refusals. @throws ParamError for a value no model of the category offers
 */
export function fitRequest<F>(model: ModelDefinition, request: GenerateRequest<F>, names: FitNames = {}): Fitted<F> {
  const out: GenerateRequest<F> = { ...request };
  const ignored: FitKey[] = [];
  const drop = (key: FitKey) => {
    delete out[key];
    ignored.push(key);
  };

  if (out.size !== undefined) {
    out.size = out.size.trim().toLowerCase();
    refuseUnlessOffered(model, 'size', out.size, names);
    const sizes = sizesOf(model);
    const exact = offeredSize(sizes, out.size);
    if (exact !== undefined) out.size = exact;
    else if (sizes.length === 0) drop('size');
    else {
      out.size = nearestSize(sizes, out.size);
      ignored.push('size');
    }
  }
  if (out.duration !== undefined && model.category === 'video') {
    refuseUnlessOffered(model, 'duration', out.duration, names);
    const durations = durationsOf(model);
    if (!durations.includes(out.duration)) {
      const wanted = out.duration;
      out.duration = durations.reduce((a, b) => (Math.abs(b - wanted) < Math.abs(a - wanted) ? b : a));
      ignored.push('duration');
    }
  }
  if (out.voiceId !== undefined) {
    refuseUnlessOffered(model, 'voiceId', out.voiceId, names);
    if (model.category !== 'tts' || !voiceOffered(model, out.voiceId)) drop('voiceId');
  }
  if (out.audioFormat !== undefined) {
    refuseUnlessOffered(model, 'audioFormat', out.audioFormat, names);
    const formats = model.category === 'tts' || model.category === 'music' ? model.config.audio_formats : [];
    if (!formats.includes(out.audioFormat)) drop('audioFormat');
  }
  if (out.speed !== undefined) {
    const range = model.category === 'tts' ? model.config.speed : null;
    if (!range || out.speed < range.min || out.speed > range.max) drop('speed');
  }
  if (out.style !== undefined && !(model.category === 'image' && model.config.styles.includes(out.style))) drop('style');
  if (out.quality === 'hd' && !takes(model, 'quality')) drop('quality');
  for (const key of ['negativePrompt', 'seed', 'duration', 'scale'] as const) {
    if (out[key] !== undefined && !takes(model, key)) drop(key);
  }
  return { request: out, ignored };
}
