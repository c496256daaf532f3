// POST /v1/audio/speech, /v1/audio/transcriptions and /v1/audio/translations: OpenAI's Audio API over the core.
import type Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { ParamError } from '../../../core/catalog/errors';
import { fitRequest } from '../../../core/catalog/fit';
import { commandFromRequest } from '../../../core/catalog/params';
import { sniffAudio } from '../../../core/media/sniff';
import { fileDigest } from '../../idempotent';
import { actorOf } from '../../middleware/auth';
import { ApiError } from '../../middleware/errors';
import { readJsonBody } from '../../middleware/json-body';
import { readMultipart } from '../../middleware/multipart';
import { parseInput } from '../../middleware/validation';
import { announceReplacement } from '../../model-replaced';
import { STT_MAX_BYTES } from '../../v2/generation-routes';
import { fallbacksOf } from '../fallback-models';
import {
  AUDIO_VENDOR_NAMES,
  ignoredTranscriptionOptions,
  modelOfCategory,
  refuseStreamedTranscript,
  SPEECH_NAMES,
  speechBody,
  transcriptionFields,
  translationFields,
} from './audio-request';
import {
  applyRate,
  billing,
  finishedGenerations,
  mediaContext,
  type MediaServices,
  resultBytes,
  runCommand,
  setIgnored,
  startOnce,
  wireNames,
} from './run';
import { renderTranscript } from './transcript-formats';

async function speech(ctx: ParameterizedContext, services: MediaServices): Promise<void> {
  const body = parseInput(speechBody, await readJsonBody(ctx), 'body');
  if (body.stream_format === 'sse') {
    throw new ParamError('stream_format', 'stream_format: only `audio` is offered; streamed speech events are not');
  }
  const voice = typeof body.voice === 'object' && body.voice !== null ? body.voice.id : (body.voice ?? undefined);
  const run = await startOnce(ctx, services, 'POST /v1/audio/speech', body, async () => {
    const model = modelOfCategory(body.model, 'tts', 'a speech model');
    const fitted = fitRequest<never>(
      model,
      {
        model: body.model,
        ...fallbacksOf(body.model, body.models),
        prompt: body.input,
        voiceId: voice,
        audioFormat: body.response_format ?? undefined,
        speed: body.speed ?? undefined,
      },
      SPEECH_NAMES,
    );
    const ids = await runCommand(ctx, services, commandFromRequest(fitted.request));
    return { ids, ignored: [...(body.instructions ? ['instructions'] : []), ...wireNames(fitted.ignored, SPEECH_NAMES)] };
  });
  const generations = await finishedGenerations(ctx, services, run.generation_ids);
  setIgnored(ctx, run.ignored, generations, AUDIO_VENDOR_NAMES);
  await billing(ctx, services, generations);
  const { data, mime } = await resultBytes(services, generations[0]!);
  ctx.type = mime;
  ctx.body = data;
}

/** Transcriptions and translations: one multipart form, one generation, rendered in the asked format. */
async function speechToText(ctx: ParameterizedContext, services: MediaServices, task: 'transcribe' | 'translate'): Promise<void> {
  const form = await readMultipart(ctx, { maxFileBytes: STT_MAX_BYTES, fileFields: ['file'] });
  const fields =
    task === 'translate' ? parseInput(translationFields, form.fields, 'body') : parseInput(transcriptionFields, form.fields, 'body');
  const all = fields as Partial<ReturnType<typeof transcriptionFields.parse>>;
  refuseStreamedTranscript(all);
  const granularities = form.fieldLists['timestamp_granularities[]'] ?? [];
  if (granularities.some((g) => g !== 'word' && g !== 'segment')) {
    throw new ParamError('timestamp_granularities[]', 'timestamp_granularities[] must be `word` or `segment`');
  }
  const file = form.files.file;
  if (!file) throw new ApiError(400, 'validation_error', 'file: an audio file is required', { field: 'file' });
  const model = modelOfCategory(fields.model, 'stt', 'a speech-to-text model');
  const kind = sniffAudio(file.data);
  const formats = model.category === 'stt' ? model.config.audio_formats : [];
  if (!kind || !formats.includes(kind.ext)) {
    throw new ApiError(400, 'invalid_input', `file: the upload is not audio of one of: ${formats.join(', ')}`, { field: 'file' });
  }
  const format = fields.response_format ?? 'json';
  const diarized = format === 'diarized_json';
  if (diarized && !(model.category === 'stt' && model.config.supports_diarization)) {
    throw new ParamError('response_format', `response_format diarized_json needs a model with diarization; ${fields.model} has none`);
  }
  const route = task === 'translate' ? 'POST /v1/audio/translations' : 'POST /v1/audio/transcriptions';
  const fingerprintBody = { ...form.fieldLists, file: fileDigest('file', file.data) };
  const run = await startOnce(ctx, services, route, fingerprintBody, async () => {
    const outcome = await services.generations.transcribe(
      actorOf(ctx),
      {
        audio: { data: file.data, mime: kind.mime, filename: `audio.${kind.ext}` },
        model: fields.model,
        language: all.language,
        prompt: fields.prompt,
        diarize: diarized || all.diarize === 'true' || all.diarize === '1',
        translate: task === 'translate',
      },
      mediaContext(ctx, services),
    );
    announceReplacement(ctx, outcome.replaced, outcome.generation.modelSlug);
    applyRate(ctx, outcome.rate);
    return { ids: [outcome.generation.id], ignored: ignoredTranscriptionOptions(all) };
  });
  const generations = await finishedGenerations(ctx, services, run.generation_ids);
  const g = generations[0]!;
  const words = granularities.includes('word') && format === 'verbose_json';
  const ignored = [...run.ignored];
  if (words && !Array.isArray(g.resultMetadata?.words)) ignored.push('timestamp_granularities[]');
  setIgnored(ctx, ignored, generations, AUDIO_VENDOR_NAMES);
  const rendered = renderTranscript(g, format, { task, words, service: await billing(ctx, services, generations) });
  ctx.type = rendered.type;
  ctx.body = rendered.body;
}

/** The Audio API routes. */
export function registerAudioRoutes(router: Router, services: MediaServices): void {
  router.post('/audio/speech', (ctx) => speech(ctx, services));
  router.post('/audio/transcriptions', (ctx) => speechToText(ctx, services, 'transcribe'));
  router.post('/audio/translations', (ctx) => speechToText(ctx, services, 'translate'));
}
