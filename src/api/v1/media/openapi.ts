// The media routes of /v1 (OpenAI's Images, Audio and Videos APIs) in the OpenAPI document.
import type Router from '@koa/router';
import { z } from 'zod';
import { components } from '../../openapi/components';
import { documentOperation, type ResponseSpec } from '../../openapi/registry';
import { V1ErrorSchema } from '../../openapi/v1-components';
import { speechBody, transcriptionFields, translationFields } from './audio-request';
import { imageEditFields, imageGenerationBody } from './image-request';
import { videoCreateBody, videoListQuery } from './video-request';

const errorSchema = V1ErrorSchema;
const error = (description: string): ResponseSpec => ({ description, schema: errorSchema });

const serviceObject = z
  .object({ tokens_spent: z.number().int(), balance: z.number().int() })
  .describe('tokens charged for this answer and the balance after it');

export const ImagesResponseSchema = z
  .object({
    created: z.number().int(),
    data: z.array(z.object({ b64_json: z.string().optional(), url: z.string().optional() })),
    background: z.enum(['transparent', 'opaque']).optional(),
    output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
    quality: z.enum(['low', 'medium', 'high']).optional(),
    size: z.string().optional().describe('WxH of the first image'),
    service: serviceObject,
  })
  .catchall(z.unknown());
components.add(ImagesResponseSchema, { id: 'ImagesResponse', description: 'An answer of the Images API routes' });

/** A file in a form or an answer (`format: binary`); what it holds is said in the operation's description. */
const binary = (description: string) => z.file().describe(description);

const imageEditForm = imageEditFields.extend({
  image: binary('the image to edit (PNG, JPEG, WebP or GIF, up to 20 MB); `image[]` is taken too').optional(),
  'image[]': binary('the image to edit, as the SDKs send a list (one image: the catalog’s editing models take one)').optional(),
  mask: binary(
    'for inpainting: transparent where the image is repainted, of the image’s very size; other editing models ignore it',
  ).optional(),
});

const segment = z.object({ id: z.number().int(), start: z.number(), end: z.number(), text: z.string() }).catchall(z.unknown());

export const TranscriptionSchema = z
  .union([
    z.object({
      text: z.string(),
      usage: z.object({ type: z.literal('duration'), seconds: z.number() }).optional(),
      service: serviceObject,
    }),
    z.object({
      task: z.enum(['transcribe', 'translate']),
      language: z.string().describe('in English words, lower case (`english`)'),
      duration: z.number(),
      text: z.string(),
      segments: z.array(segment),
      words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number() })).optional(),
      usage: z.object({ type: z.literal('duration'), seconds: z.number() }).optional(),
      service: serviceObject,
    }),
    z.object({
      task: z.literal('transcribe'),
      duration: z.number(),
      text: z.string(),
      segments: z.array(
        z.object({
          type: z.literal('transcript.text.segment'),
          id: z.string(),
          start: z.number(),
          end: z.number(),
          text: z.string(),
          speaker: z.string().describe('A, B, ... in order of first appearance'),
        }),
      ),
      usage: z.object({ type: z.literal('duration'), seconds: z.number() }).optional(),
      service: serviceObject,
    }),
  ])
  .describe('json, verbose_json or diarized_json (text, srt and vtt answer text/plain or text/vtt)');
components.add(TranscriptionSchema, { id: 'Transcription', description: 'A JSON answer of the transcription routes' });

const audioFileForm = (fields: z.ZodObject) =>
  fields.extend({ file: binary('the audio (mp3, mp4, wav, m4a, ogg, flac or webm; up to 25 MB)') });

/** What a media route that runs a model may answer besides 200, in OpenAI's error body. */
function runErrors(extra: Record<number, ResponseSpec> = {}): Record<number, ResponseSpec> {
  return {
    400: error(
      'Invalid input, named in `param`: an unknown parameter, an empty prompt, a value no catalog model of the category offers, a model of another category, a non-image upload, a mask of another size',
    ),
    402: error('The balance or the API key’s budget cannot cover the request (`insufficient_tokens`, `key_budget_exceeded`)'),
    404: error('No model with this id (`model_not_found`)'),
    409: error('A request with the same Idempotency-Key is still running (`idempotency_conflict`)'),
    410: error('`model_retired`: the model is retired and has no replacement'),
    422: error('The Idempotency-Key was used with another body (`idempotency_key_reused`), or an input could not be read'),
    502: error('The provider failed (nothing charged)'),
    503: error('The model is unavailable or its provider overloaded'),
    504: error('The provider did not answer in time, or the result is still being made (`result_timeout` names the generation)'),
    ...extra,
  };
}

const ignoredHeaders = {
  'X-Ignored-Parameters': 'request parameters the model does not take, ignored (comma-separated; absent when none)',
  'X-Token-Balance': 'balance after the charge',
  'X-Model-Replaced': '`<requested>-><served>` when the requested model is retired and its replacement served it',
  'Idempotent-Replayed': '`true` when the answer is the replay of an earlier request with the same Idempotency-Key',
};

function documentAudio(router: Router): void {
  const audio = ['Audio (compatible)'];
  documentOperation(router, {
    method: 'post',
    path: '/audio/speech',
    operationId: 'createSpeech',
    summary: 'OpenAI’s text to speech for every speech model of the catalog: the audio file itself',
    description:
      'The same generation, price (calculate-price with `prompt` = `input`), limits, Idempotency-Key, history and ' +
      'ledger as POST /api/v2/generate. `voice` is a voice of the model (Gemini’s prebuilt voices, or an ElevenLabs voice ' +
      'id); `response_format` mp3 or wav, as the model makes it; `speed` within the model’s range. A value only other ' +
      'speech models offer gives way to the model’s default and is named in X-Ignored-Parameters; one no model offers is a 400.',
    tags: audio,
    security: 'bearer',
    apiKeyHeader: true,
    openToRestrictedKeys: true,
    body: speechBody,
    errorSchema,
    responses: {
      200: {
        description: 'The speech: MP3 or WAV, as the model makes it',
        schema: binary('the audio file'),
        contentType: 'audio/mpeg',
        alsoContentTypes: ['audio/wav'],
        headers: ignoredHeaders,
      },
      ...runErrors(),
    },
  });
  for (const [path, operationId, fields, summary] of [
    ['/audio/transcriptions', 'createTranscription', transcriptionFields, 'OpenAI’s speech to text for every speech-to-text model'],
    [
      '/audio/translations',
      'createTranslation',
      translationFields,
      'OpenAI’s speech translation into English (models with supports_translation)',
    ],
  ] as const) {
    documentOperation(router, {
      method: 'post',
      path,
      operationId,
      summary,
      description:
        'multipart/form-data. The same generation, price, limits, Idempotency-Key, history and ledger as POST /api/v2/stt. ' +
        '`response_format`: json (default), text, srt, vtt, verbose_json (timed segments: the vendor’s, or one over the ' +
        'whole audio where the vendor gives none; Whisper’s decoding statistics are 0), diarized_json (speaker-labelled ' +
        'segments, models with diarization).',
      tags: audio,
      security: 'bearer',
      apiKeyHeader: true,
      openToRestrictedKeys: true,
      body: audioFileForm(fields),
      bodyContentType: 'multipart/form-data',
      errorSchema,
      responses: {
        200: {
          description: 'The transcript',
          schema: TranscriptionSchema,
          alsoContentTypes: ['text/plain', 'text/vtt'],
          headers: ignoredHeaders,
        },
        ...runErrors({ 413: error('Audio over 25 MB'), 415: error('Not multipart/form-data') }),
      },
    });
  }
}

export const VideoSchema = z
  .object({
    id: z.string().describe('`video_<generation id>`'),
    object: z.literal('video'),
    model: z.string(),
    status: z.enum(['queued', 'in_progress', 'completed', 'failed']),
    progress: z.number().int().min(0).max(100),
    created_at: z.number().int(),
    completed_at: z.number().int().nullable(),
    expires_at: z.number().int().nullable().describe('when retention deletes the file (null: never)'),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    prompt: z.string().nullable(),
    remixed_from_video_id: z.null(),
    seconds: z.string(),
    size: z.string().describe('the aspect ratio the model made, or `auto` where the first frame decides'),
  })
  .catchall(z.unknown());
components.add(VideoSchema, { id: 'Video', description: 'A video job of the Videos API: the pending generation itself' });

const videoId = z.object({ id: z.string().describe('`video_<generation id>`') });
const notFound = error('No video of the caller with this id (also once deleted or past retention)');

function documentVideos(router: Router): void {
  const videos = ['Videos (compatible)'];
  const common = { tags: videos, security: 'bearer' as const, apiKeyHeader: true, openToRestrictedKeys: true, errorSchema };
  documentOperation(router, {
    ...common,
    method: 'post',
    path: '/videos',
    operationId: 'createVideo',
    summary: 'OpenAI’s video generation for every video model of the catalog: answers the job (queued)',
    description:
      'JSON or multipart/form-data (the SDK sends a form; `input_reference` may then be the first frame as a file). The ' +
      'job is the pending generation of POST /api/v2/generate: the same price (calculate-price with `duration` = ' +
      '`seconds`), hold, limits, Idempotency-Key, history, webhooks and ledger. Poll GET /v1/videos/{id}.',
    body: videoCreateBody,
    bodyLimitBytes: 28 * 1024 * 1024,
    otherBodies: { 'multipart/form-data': videoCreateBody.extend({ input_reference: binary('the first frame').optional() }) },
    responses: {
      200: { description: 'The job', schema: VideoSchema, headers: ignoredHeaders },
      ...runErrors({
        413: error('A body over 28 MB, or a reference image over 20 MB'),
        415: error('Neither JSON nor multipart/form-data'),
      }),
    },
  });
  documentOperation(router, {
    ...common,
    method: 'get',
    path: '/videos',
    operationId: 'listVideos',
    summary: 'The caller’s video jobs, newest first, a page at a time (deleted ones left out)',
    query: videoListQuery,
    responses: {
      200: {
        description: 'A page of jobs',
        schema: z.object({
          object: z.literal('list'),
          data: z.array(VideoSchema),
          first_id: z.string().nullable(),
          last_id: z.string().nullable(),
          has_more: z.boolean(),
        }),
      },
    },
  });
  documentOperation(router, {
    ...common,
    method: 'get',
    path: '/videos/:id',
    operationId: 'getVideo',
    summary: 'A video job: queued, in_progress (with progress), completed or failed (with error)',
    params: videoId,
    responses: { 200: { description: 'The job', schema: VideoSchema }, 404: notFound },
  });
  documentOperation(router, {
    ...common,
    method: 'get',
    path: '/videos/:id/content',
    operationId: 'getVideoContent',
    summary: 'The finished video file (MP4)',
    params: videoId,
    query: z.object({ variant: z.enum(['video', 'thumbnail', 'spritesheet']).optional().describe('`video` only: others are a 400') }),
    responses: {
      200: { description: 'The video', schema: binary('the video'), contentType: 'video/mp4' },
      404: error('No such video, or it failed (no file)'),
      409: error('`generation_pending`: the job is still running'),
    },
  });
  documentOperation(router, {
    ...common,
    method: 'delete',
    path: '/videos/:id',
    operationId: 'deleteVideo',
    summary: 'Deletes a finished video’s file; the job then answers 404 (the generation stays in the history and ledger)',
    params: videoId,
    responses: {
      200: {
        description: 'Deleted',
        schema: z.object({ id: z.string(), object: z.literal('video.deleted'), deleted: z.literal(true) }),
      },
      404: notFound,
      409: error('`generation_pending`: the job is still running'),
    },
  });
}

/** The media operations of /v1. */
export function documentMedia(router: Router): void {
  documentAudio(router);
  documentVideos(router);
  const images = ['Images (compatible)'];
  documentOperation(router, {
    method: 'post',
    path: '/images/generations',
    operationId: 'createImage',
    summary: 'OpenAI’s image generation for every image model of the catalog (n images, each a generation)',
    description:
      'The same generation, price (POST /api/v2/models/{slug}/calculate-price), limits, key budgets, Idempotency-Key, ' +
      'history, webhooks and ledger as POST /api/v2/generate. Options a model does not take (a style, high quality, ' +
      'a transparent background, labels) are ignored and named in X-Ignored-Parameters.',
    tags: images,
    security: 'bearer',
    apiKeyHeader: true,
    openToRestrictedKeys: true,
    body: imageGenerationBody,
    errorSchema,
    responses: { 200: { description: 'The images', schema: ImagesResponseSchema, headers: ignoredHeaders }, ...runErrors() },
  });
  documentOperation(router, {
    method: 'post',
    path: '/images/edits',
    operationId: 'createImageEdit',
    summary: 'OpenAI’s image edits for the catalog models that edit: instruction editing, and inpainting with a mask',
    description:
      'multipart/form-data: `image` (or `image[]`), optional `mask`, `prompt` and the generation options. Image models ' +
      'that take an input image edit by instruction (a mask is ignored); the inpainting tool repaints the area the mask ' +
      'leaves transparent (or, without a mask, the image’s transparent area). Without `model`: the inpainting tool when ' +
      'a mask is sent, else the first Starter image model that edits.',
    tags: images,
    security: 'bearer',
    apiKeyHeader: true,
    openToRestrictedKeys: true,
    body: imageEditForm,
    bodyContentType: 'multipart/form-data',
    errorSchema,
    responses: {
      200: { description: 'The edited images', schema: ImagesResponseSchema, headers: ignoredHeaders },
      ...runErrors({
        413: error('An image or mask over 20 MB'),
        415: error('Not multipart/form-data'),
      }),
    },
  });
}
