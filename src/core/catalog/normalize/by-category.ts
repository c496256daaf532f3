// One normaliser per model category, in a table keyed by category: each takes its category's options and input
// images and refuses the rest.
import type { CommandInputs } from '../command';
import { ParamError } from '../errors';
import type { GenerateRequest, NormalizedParams } from '../request';
import type { Category, ModelDefinition } from '../types';
import {
  baseParams,
  checkedNegativePrompt,
  type OptionKey,
  pickAudioFormat,
  pickSize,
  rejectOptionsOtherThan,
  unsupported,
} from './common';
import { modelImageInputs, noImageInputs, toolImageInputs } from './images';

export interface Normalized<F> {
  params: NormalizedParams;
  inputs: CommandInputs<F>;
}

type ModelOf<C extends Category> = Extract<ModelDefinition, { category: C }>;
type Normalizer<C extends Category> = <F>(model: ModelOf<C>, request: GenerateRequest<F>) => Normalized<F>;

/** ElevenLabs-style voice ids: letters and digits (with `_`/`-` for custom ids). */
const VENDOR_VOICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What image and video models share: negative prompt, size and seed, besides their own `also` options. */
function pictureParams(model: ModelOf<'image' | 'video'>, request: GenerateRequest<unknown>, also: OptionKey[]): NormalizedParams {
  const params = baseParams(model, request);
  rejectOptionsOtherThan(model, request, ['negativePrompt', 'size', 'seed', ...also]);
  const negativePrompt = checkedNegativePrompt(model, request, model.config.supports_negative_prompt);
  if (negativePrompt !== undefined) params.negativePrompt = negativePrompt;
  const size = pickSize(model, model.config.sizes, model.config.default_size, request.size);
  if (size !== undefined) params.size = size;
  if (request.seed !== undefined) params.seed = request.seed;
  return params;
}

const NORMALIZERS: { [C in Category]: Normalizer<C> } = {
  text: (model) => {
    throw new ParamError('model', `${model.slug} is a text model: use POST /v1/chat/completions or POST /api/v2/generate/stream`);
  },
  stt: (model) => {
    throw new ParamError('model', `${model.slug} is a speech-to-text model: use POST /api/v2/stt`);
  },

  image: (model, request) => {
    const { config } = model;
    const params = pictureParams(model, request, ['style']);
    if (request.style !== undefined) {
      if (!config.styles.includes(request.style)) throw unsupported('style', model);
      params.style = request.style;
    }
    return { params, inputs: modelImageInputs(model, request, config.image_input) };
  },

  video: (model, request) => {
    const { config } = model;
    const params = pictureParams(model, request, ['duration']);
    const seconds = request.duration ?? config.default_duration;
    if (!config.durations.includes(seconds)) {
      throw new ParamError('duration', `duration must be one of: ${config.durations.join(', ')} (seconds) for ${model.slug}`);
    }
    params.durationSeconds = seconds;
    return { params, inputs: modelImageInputs(model, request, config.image_input) };
  },

  tts: (model, request) => {
    const { config } = model;
    const params = baseParams(model, request);
    rejectOptionsOtherThan(model, request, ['voiceId', 'speed', 'audioFormat']);
    const inputs = noImageInputs(model, request);
    const voice = request.voiceId ?? config.default_voice;
    if (config.voices ? !config.voices.includes(voice) : !VENDOR_VOICE_ID.test(voice)) {
      throw new ParamError(
        'params.voice_id',
        config.voices ? `params.voice_id must be one of: ${config.voices.join(', ')}` : 'params.voice_id is not a valid voice id',
      );
    }
    params.voiceId = voice;
    if (request.speed !== undefined) {
      if (!config.speed) throw unsupported('params.speed', model);
      if (request.speed < config.speed.min || request.speed > config.speed.max) {
        throw new ParamError('params.speed', `params.speed must be between ${config.speed.min} and ${config.speed.max}`);
      }
      params.speed = request.speed;
    }
    params.audioFormat = pickAudioFormat(config.audio_formats, config.default_audio_format, request.audioFormat);
    return { params, inputs };
  },

  music: (model, request) => {
    const { config } = model;
    const params = baseParams(model, request);
    rejectOptionsOtherThan(model, request, ['seed', 'duration', 'audioFormat']);
    const inputs = noImageInputs(model, request);
    if (request.seed !== undefined) params.seed = request.seed;
    const seconds = request.duration ?? config.default_duration;
    if (seconds < config.min_duration || seconds > config.max_duration) {
      throw new ParamError('duration', `duration must be between ${config.min_duration} and ${config.max_duration} seconds`);
    }
    params.durationSeconds = seconds;
    params.audioFormat = pickAudioFormat(config.audio_formats, config.default_audio_format, request.audioFormat);
    return { params, inputs };
  },

  tool: (model, request) => {
    const { config } = model;
    const params = baseParams(model, request);
    rejectOptionsOtherThan(model, request, config.scales.length > 0 ? ['scale'] : []);
    const inputs = toolImageInputs(model, request);
    if (config.scales.length > 0) {
      const scale = request.scale ?? config.scales[0]!;
      if (!config.scales.includes(scale)) throw new ParamError('params.scale', `params.scale must be one of: ${config.scales.join(', ')}`);
      params.scale = scale;
    }
    return { params, inputs };
  },
};

/** The model's category's rules on the request. @throws ParamError */
export function normalizeForModel<F>(model: ModelDefinition, request: GenerateRequest<F>): Normalized<F> {
  // The table is exhaustive by category; TypeScript cannot correlate `model` with its entry, hence the widening.
  const normalize = NORMALIZERS[model.category] as Normalizer<Category>;
  return normalize(model as ModelOf<Category>, request);
}
