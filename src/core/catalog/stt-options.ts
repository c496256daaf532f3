// Model choice and options of POST /api/v2/stt (multipart: the fields arrive as strings).
import { defaultSttModel, listModels } from './catalog';
import { resolveModel } from './lifecycle';
import { ParamError } from './errors';
import { characterCount, MAX_PROMPT_LENGTH } from './limits';
import type { SttModel } from './types';

export interface SttOptions {
  /** ISO 639 code, lower case; absent = auto-detect. */
  language?: string;
  diarize: boolean;
  /** Words and style to expect, for vendors that take a prompt. */
  prompt?: string;
  /** Translate into English instead of transcribing (models with `supports_translation`). */
  translate?: boolean;
}

/** What a caller asks of a speech-to-text model besides the audio (multipart fields arrive as strings). */
export interface SttOptionsInput {
  language?: string | null;
  diarize?: boolean | string | null;
  prompt?: string | null;
  translate?: boolean;
}

/**
 * The named STT model (its replacement when it is retired), or the default one when `slug` is empty.
 * @throws UnknownModelError, ModelRetiredError, ParamError
 */
export function resolveSttModel(slug?: string | null): { model: SttModel; replaced?: { from: string; shutdownAt: string | null } } {
  const trimmed = slug?.trim();
  if (!trimmed) return { model: defaultSttModel() };
  const { model, replacedFrom, shutdownAt } = resolveModel(trimmed);
  if (model.category !== 'stt') {
    throw new ParamError('model', `${trimmed} is not a speech-to-text model`);
  }
  return replacedFrom !== undefined ? { model, replaced: { from: replacedFrom, shutdownAt: shutdownAt ?? null } } : { model };
}

const LANGUAGE_CODE = /^[a-z]{2,3}$/;

/** @throws ParamError */
export function normalizeSttOptions(model: SttModel, input: SttOptionsInput): SttOptions {
  const language = input.language?.trim().toLowerCase();
  if (language && language !== 'auto' && !LANGUAGE_CODE.test(language)) {
    throw new ParamError('language', 'language must be a language code such as en, ru or es');
  }
  const diarize = parseBoolean(input.diarize);
  if (diarize && !model.config.supports_diarization) {
    const able = listModels({ category: 'stt' }).filter((m) => m.category === 'stt' && m.config.supports_diarization);
    throw new ParamError('diarize', `diarize is supported only by ${able.map((m) => m.slug).join(', ')}, not ${model.slug}`);
  }
  if (input.translate && !model.config.supports_translation) {
    const able = listModels({ category: 'stt' }).filter((m) => m.category === 'stt' && m.config.supports_translation);
    throw new ParamError('model', `${model.slug} does not translate; translation is offered by ${able.map((m) => m.slug).join(', ')}`);
  }
  const prompt = input.prompt ?? '';
  if (characterCount(prompt) > MAX_PROMPT_LENGTH) {
    throw new ParamError('prompt', `prompt is longer than ${MAX_PROMPT_LENGTH} characters`, 'too_long');
  }
  return {
    ...(language && language !== 'auto' ? { language } : {}),
    diarize,
    ...(prompt.trim() !== '' ? { prompt } : {}),
    ...(input.translate ? { translate: true } : {}),
  };
}

function parseBoolean(value: boolean | string | null | undefined): boolean {
  if (typeof value === 'boolean') return value;
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '' || text === 'false' || text === '0') return false;
  if (text === 'true' || text === '1') return true;
  throw new ParamError('diarize', 'diarize must be true or false');
}
