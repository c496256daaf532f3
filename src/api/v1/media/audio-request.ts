// OpenAI's Audio API requests: speech (JSON), transcriptions and translations (multipart), read for the core.
import { z } from 'zod';
import { listModels } from '../../../core/catalog/catalog';
import { ParamError } from '../../../core/catalog/errors';
import { resolveModel } from '../../../core/catalog/lifecycle';
import type { ModelDefinition } from '../../../core/catalog/types';
import { fallbackModels } from '../fallback-models';
import type { OptionNames } from './run';

/** What each core option is called in the speech API. */
export const SPEECH_NAMES: OptionNames = { voiceId: 'voice', audioFormat: 'response_format', speed: 'speed' };

/** /api/v2 names of the options a vendor may leave out, as the Audio API calls them. */
export const AUDIO_VENDOR_NAMES: Readonly<Record<string, string>> = {
  'params.speed': 'speed',
  language: 'language',
  diarize: 'diarize',
  prompt: 'prompt',
};

export const speechBody = z.strictObject({
  model: z.string().trim().min(1).describe('a catalog speech model'),
  models: fallbackModels.nullish(),
  input: z.string().describe('the text to speak; required, not empty'),
  voice: z
    .union([z.string().trim().min(1).max(128), z.object({ id: z.string().trim().min(1).max(128) })])
    .nullish()
    .describe(
      "a voice of the model (its config.voices, or an ElevenLabs voice id); default: the model's. A voice only other speech models have gives way to the default (named in X-Ignored-Parameters); one no catalog model has is a 400",
    ),
  instructions: z.string().max(4096).nullish().describe('ignored: steer the delivery in the text instead'),
  response_format: z
    .string()
    .trim()
    .toLowerCase()
    .max(16)
    .nullish()
    .describe("the model's audio format (mp3 or wav); a format only other speech models offer gives way to the model's; others are a 400"),
  speed: z.number().min(0.25).max(4).nullish().describe("within the model's range (config.speed), else ignored"),
  stream_format: z.enum(['sse', 'audio']).nullish().describe('`audio` only: `sse` is a 400'),
});
export type SpeechBody = z.infer<typeof speechBody>;

export const TRANSCRIPT_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

const formBoolean = z.enum(['true', 'false', '1', '0']);
const formNumber = z
  .string()
  .trim()
  .regex(/^-?\d+(\.\d+)?$/, 'must be a number')
  .transform(Number);

/** The text fields of the transcriptions form (the file is read apart). */
export const transcriptionFields = z.strictObject({
  model: z.string().trim().min(1).describe('a catalog speech-to-text model'),
  language: z.string().trim().max(16).nullish().describe('ISO 639-1 code of the spoken language; default: detected'),
  prompt: z.string().nullish().describe('words and style to expect (where the vendor takes one)'),
  response_format: z
    .enum(TRANSCRIPT_FORMATS)
    .nullish()
    .describe('default json; `diarized_json` (speaker-labelled segments) for models with config.supports_diarization'),
  temperature: formNumber.pipe(z.number().min(0).max(1)).nullish().describe('ignored'),
  'timestamp_granularities[]': z
    .enum(['word', 'segment'])
    .nullish()
    .describe('`word` adds `words` to verbose_json where the vendor times words'),
  'include[]': z.string().nullish().describe('ignored'),
  chunking_strategy: z.string().nullish().describe('ignored'),
  'known_speaker_names[]': z.string().nullish().describe('ignored'),
  'known_speaker_references[]': z.string().nullish().describe('ignored'),
  stream: formBoolean.nullish().describe('streaming is not offered: `true` is a 400'),
  diarize: formBoolean.nullish().describe('label speakers (models with config.supports_diarization), as on POST /api/v2/stt'),
});
export type TranscriptionFields = z.infer<typeof transcriptionFields>;

/** Translations: the transcription form without the options a translation does not take. */
export const translationFields = transcriptionFields.pick({ model: true, prompt: true, temperature: true }).extend({
  response_format: z.enum(['json', 'text', 'srt', 'verbose_json', 'vtt']).nullish().describe('default json'),
});
export type TranslationFields = z.infer<typeof translationFields>;

/** The speech model of a request (a retired one resolves to its replacement). @throws UnknownModelError, ParamError */
export function modelOfCategory(slug: string, category: 'tts' | 'stt', what: string): ModelDefinition {
  const { model } = resolveModel(slug);
  if (model.category !== category) {
    const able = listModels({ category }).map((m) => m.slug);
    throw new ParamError('model', `${slug} is not ${what}; use one of: ${able.join(', ')}`);
  }
  return model;
}

/** The form's options that no speech-to-text model here takes, by their wire names. */
export function ignoredTranscriptionOptions(fields: Partial<TranscriptionFields>): string[] {
  const names = ['temperature', 'include[]', 'chunking_strategy', 'known_speaker_names[]', 'known_speaker_references[]'] as const;
  return names.filter((name) => fields[name] !== undefined && fields[name] !== null);
}

/** @throws ParamError 400 for a streamed answer */
export function refuseStreamedTranscript(fields: Partial<TranscriptionFields>): void {
  if (fields.stream === 'true' || fields.stream === '1') {
    throw new ParamError('stream', 'stream: streamed transcription is not offered; send the request without stream');
  }
}
