import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { announceReplacement } from '../model-replaced';
import { commandFromRequest } from '../../core/catalog/params';
import { GenerationFailedError } from '../../core/generations/errors';
import { fingerprint, StoredResponse } from '../../core/generations/idempotency';
import { clientSignal } from '../client-signal';
import { idempotentAttemptOf, idempotentResponse } from '../idempotent';
import { GenerationOutcome, RequestContext } from '../../core/generations/service';
import { toGenerationView } from '../views/generation';
import { sniffAudio } from '../../core/media/sniff';
import type { ApiServices } from '../api-services';
import { actorOf, authOf, ownReadsOf } from '../middleware/auth';
import { ApiError } from '../middleware/errors';
import { readJsonBody } from '../middleware/json-body';
import { readMultipart } from '../middleware/multipart';
import { parseInput } from '../middleware/validation';
import { applyRateLimitHeaders } from '../middleware/rate-limit-headers';
import { ErrorSchema, GenerationSchema } from '../openapi/components';
import { documentOperation } from '../openapi/registry';
import { generateBodySchema, parseGenerateBody, parseGenerateCommand, requestFromBody } from './generate-body';
import { ownOrigins, requestOrigin } from './public-url';
import { generationIdParams } from './path-params';
import { registerStreamRoute } from './stream-route';

/** One base64 `data:` image of up to 20 MB (MAX_INPUT_IMAGE_BYTES) fits, with room for the other fields. */
export const GENERATE_BODY_LIMIT = 28 * 1024 * 1024;
export const STT_MAX_BYTES = 25 * 1024 * 1024;
const STT_FORMATS = new Set(['mp3', 'mp4', 'wav', 'm4a', 'ogg', 'flac', 'webm']);
const INPAINT_MAX_BYTES = 20 * 1024 * 1024;

const generationResponse = {
  description: 'The Generation (completed, pending with eta_seconds, or failed with error)',
  schema: GenerationSchema,
};

const error = (description: string) => ({ description, schema: ErrorSchema });

/** What a model-running request can meet besides bad input: the balance, the catalog, its idempotency key, the vendor. */
const runErrors = {
  402: error('The balance or the API key’s budget cannot cover the request (`insufficient_tokens`, `key_budget_exceeded`)'),
  409: error('A request with the same Idempotency-Key is still running (`idempotency_conflict`)'),
  410: error('`model_retired`: the model is retired and has no replacement (body has shutdown_at)'),
  422: error(
    'An input image could not be fetched or read (`invalid_input`), or the Idempotency-Key was used with another body (`idempotency_key_reused`)',
  ),
  503: error('The model is unavailable (`model_unavailable`) or its provider is overloaded (`generation_failed`)'),
};
const unknownModel = error('No model with this slug (`model_not_found`)');

/** A multipart upload refused before it is read as a request. */
const uploadErrors = (limit: string) => ({
  400: error('A malformed form, a missing or unknown field (`validation_error` names it)'),
  413: error(`A file over ${limit}`),
  415: error('Not multipart/form-data, a compressed body, or a file of a type the model does not read'),
});

export function requestContextOf(
  ctx: ParameterizedContext,
  services: Pick<ApiServices, 'config' | 'generations' | 'idempotency' | 'chat'>,
): RequestContext {
  return {
    source: 'api',
    ownOrigins: ownOrigins(ctx, services.config),
    linkOrigin: requestOrigin(ctx),
    signal: clientSignal(ctx),
    attempt: idempotentAttemptOf(ctx),
  };
}

function renderOutcome(
  ctx: ParameterizedContext,
  services: Pick<ApiServices, 'config' | 'generations' | 'idempotency' | 'chat'>,
  outcome: GenerationOutcome,
): StoredResponse {
  applyRateLimitHeaders(ctx, outcome.rate);
  const g = outcome.generation;
  // An overloaded provider is a 503 (retry later or switch models); other failures are reported in the body.
  if (g.status === 'failed' && g.errorKind === 'overloaded') {
    throw new GenerationFailedError(g.id, 'overloaded', g.error ?? 'The model is overloaded', g.modelSlug);
  }
  return { status: 200, body: toGenerationView(g, services.config.links) };
}

/** Answers with what `work` (or, for a replayed Idempotency-Key, the first attempt) answered. */
async function idempotent(
  ctx: ParameterizedContext,
  services: Pick<ApiServices, 'idempotency' | 'generations' | 'config'>,
  route: string,
  body: unknown,
  work: () => Promise<StoredResponse>,
): Promise<void> {
  // A retry after an attempt that failed with its generation opened answers with that generation as it is now.
  const replay = async (ids: number[]): Promise<StoredResponse> => ({
    status: 200,
    body: toGenerationView(await services.generations.get(authOf(ctx).userId, ids[0]!), services.config.links),
  });
  const response = await idempotentResponse(ctx, services, route, body, work, replay);
  ctx.status = response.status;
  ctx.body = response.body;
}

export function registerGenerationRoutes(
  router: Router,
  services: Pick<ApiServices, 'config' | 'generations' | 'idempotency' | 'chat'>,
): void {
  documentOperation(router, {
    method: 'post',
    path: '/generate',
    operationId: 'generate',
    security: 'bearer',
    openToRestrictedKeys: true,
    summary: 'Run an image, video, speech, music or tool model',
    tags: ['Generation'],
    description:
      'Input images may be sent inline as base64 `data:` URIs (up to 20 MB decoded), so this route accepts JSON bodies of up to 28 MB; every other JSON route takes at most 1 MB.',
    body: generateBodySchema,
    bodyLimitBytes: GENERATE_BODY_LIMIT,
    responses: {
      200: {
        ...generationResponse,
        headers: { 'X-Model-Replaced': '`<requested>-><served>` when the requested model is retired and its replacement ran it' },
      },
      ...runErrors,
      404: unknownModel,
    },
  });
  router.post('/generate', async (ctx) => {
    const body = await readJsonBody(ctx, { limitBytes: GENERATE_BODY_LIMIT });
    // The idempotency fingerprint covers the validated request, never the raw input.
    const validated = parseGenerateBody(body);
    await idempotent(ctx, services, 'POST /generate', validated, async () => {
      const command = commandFromRequest(requestFromBody(validated));
      announceReplacement(ctx, command.replaced, command.model.slug);
      return renderOutcome(ctx, services, await services.generations.generate(actorOf(ctx), command, requestContextOf(ctx, services)));
    });
  });

  for (const path of ['/generate/:id', '/inpaint/:id']) {
    documentOperation(router, {
      method: 'get',
      path,
      operationId: path.startsWith('/generate') ? 'getGeneration' : 'getInpaint',
      security: 'bearer',
      openToRestrictedKeys: true,
      summary: 'Poll a generation until status is completed or failed',
      tags: ['Generation'],
      params: generationIdParams,
      responses: { 200: generationResponse, 404: error('No such generation of the caller') },
    });
    router.get(path, async (ctx) => {
      const { id } = parseInput(generationIdParams, ctx.params, 'path');
      const g = await services.generations.get(authOf(ctx).userId, id, ownReadsOf(ctx));
      ctx.body = toGenerationView(g, services.config.links);
    });
  }

  documentOperation(router, {
    method: 'post',
    path: '/stt',
    operationId: 'speechToText',
    security: 'bearer',
    openToRestrictedKeys: true,
    summary: 'Speech to text (multipart: audio, model, language, diarize)',
    description: 'The audio file may be up to 25 MB (413 beyond); other multipart problems answer 400 saying what was wrong.',
    tags: ['Generation'],
    bodyContentType: 'multipart/form-data',
    responses: {
      200: {
        ...generationResponse,
        headers: { 'X-Model-Replaced': '`<requested>-><served>` when the requested model is retired and its replacement ran it' },
      },
      ...runErrors,
      404: unknownModel,
      ...uploadErrors('25 MB'),
    },
  });
  router.post('/stt', async (ctx) => {
    const form = await readMultipart(ctx, { maxFileBytes: STT_MAX_BYTES, fileFields: ['audio'] });
    const audio = form.files.audio;
    if (!audio) throw new ApiError(400, 'validation_error', 'audio: a file is required', { field: 'audio' });
    const kind = sniffAudio(audio.data);
    if (!kind || !STT_FORMATS.has(kind.ext)) {
      throw new ApiError(415, 'unsupported_media_type', `audio must be one of: ${[...STT_FORMATS].join(', ')}`, { field: 'audio' });
    }
    const fingerprintBody = { ...form.fields, audio: fingerprint('audio', audio.data.toString('base64')) };
    await idempotent(ctx, services, 'POST /stt', fingerprintBody, async () => {
      const outcome = await services.generations.transcribe(
        actorOf(ctx),
        {
          audio: { data: audio.data, mime: kind.mime, filename: `audio.${kind.ext}` },
          model: form.fields.model,
          language: form.fields.language,
          diarize: form.fields.diarize,
        },
        requestContextOf(ctx, services),
      );
      announceReplacement(ctx, outcome.replaced, outcome.generation.modelSlug);
      return renderOutcome(ctx, services, outcome);
    });
  });

  documentOperation(router, {
    method: 'post',
    path: '/inpaint',
    operationId: 'inpaint',
    security: 'bearer',
    openToRestrictedKeys: true,
    summary: 'Repaint the masked region of an image (multipart: image, optional mask, prompt)',
    description:
      'Image and mask may be up to 20 MB each (413 beyond); other multipart problems answer 400 saying what was wrong. ' +
      'The mask is white where the image is repainted; without a mask the transparent area of the image is repainted, ' +
      'and an image without transparency answers 400 naming `mask`.',
    tags: ['Generation'],
    bodyContentType: 'multipart/form-data',
    responses: { 200: generationResponse, ...runErrors, ...uploadErrors('20 MB') },
  });
  router.post('/inpaint', async (ctx) => {
    const form = await readMultipart(ctx, { maxFileBytes: INPAINT_MAX_BYTES, fileFields: ['image', 'mask'] });
    const { image, mask } = form.files;
    if (!image) throw new ApiError(400, 'validation_error', 'image: a file is required', { field: 'image' });
    const prompt = form.fields.prompt ?? '';
    const fingerprintBody = {
      ...form.fields,
      image: fingerprint('image', image.data.toString('base64')),
      ...(mask ? { mask: fingerprint('mask', mask.data.toString('base64')) } : {}),
    };
    await idempotent(ctx, services, 'POST /inpaint', fingerprintBody, async () => {
      const parsed = parseGenerateCommand(
        { model: 'inpaint', prompt, format: form.fields.format },
        {
          'params.image_url': { data: image.data, field: 'image' },
          ...(mask ? { 'params.mask_url': { data: mask.data, field: 'mask' } } : {}),
        },
      );
      const command = { ...parsed, inputs: { ...parsed.inputs, maskField: 'mask' } };
      const outcome = await services.generations.generate(actorOf(ctx), command, requestContextOf(ctx, services));
      return renderOutcome(ctx, services, outcome);
    });
  });

  registerStreamRoute(router, services);
}
