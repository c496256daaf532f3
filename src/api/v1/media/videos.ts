// POST /v1/videos, GET /v1/videos/{id}, GET /v1/videos/{id}/content, DELETE /v1/videos/{id}: OpenAI's Videos API over
// the core's generations. A video job is the pending generation itself: the same history, webhooks and ledger as a
// video asked for on /api/v2/generate.
import type Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { NotFoundError } from '../../../core/accounts/errors';
import type { UploadedImage } from '../../../core/catalog/command';
import { ParamError } from '../../../core/catalog/errors';
import { fitRequest } from '../../../core/catalog/fit';
import { commandFromRequest, type GenerateRequest } from '../../../core/catalog/params';
import { GenerationPendingError } from '../../../core/generations/errors';
import { MAX_INPUT_IMAGE_BYTES } from '../../../core/generations/media/inputs';
import { sniffImage } from '../../../core/media/sniff';
import type { GenerationRecord } from '../../../core/records';
import { fileDigest } from '../../idempotent';
import { authOf, ownReadsOf } from '../../middleware/auth';
import { ApiError } from '../../middleware/errors';
import { readJsonBody } from '../../middleware/json-body';
import { readMultipart, type UploadedFile } from '../../middleware/multipart';
import { parseInput } from '../../middleware/validation';
import { GENERATE_BODY_LIMIT } from '../../v2/generation-routes';
import { fallbacksOf } from '../fallback-models';
import { withWireNames } from '../wire-names';
import { type MediaServices, runCommand, setIgnored, startOnce, wireNames } from './run';
import {
  generationIdOfVideo,
  referenceUrl,
  VIDEO_NAMES,
  VIDEO_VENDOR_NAMES,
  videoCreateBody,
  type VideoCreateBody,
  videoListQuery,
  videoModelFor,
  videoObject,
} from './video-request';

/** The request as the create route received it: JSON, or a form with the reference image as a file. */
async function readCreate(ctx: ParameterizedContext): Promise<{ body: VideoCreateBody; file?: UploadedFile }> {
  if (!ctx.is('multipart/form-data'))
    return { body: parseInput(videoCreateBody, await readJsonBody(ctx, { limitBytes: GENERATE_BODY_LIMIT }), 'body') };
  const form = await readMultipart(ctx, { maxFileBytes: MAX_INPUT_IMAGE_BYTES, fileFields: ['input_reference'] });
  return { body: parseInput(videoCreateBody, form.fields, 'body'), file: form.files.input_reference };
}

async function create(ctx: ParameterizedContext, services: MediaServices): Promise<void> {
  const { body, file } = await readCreate(ctx);
  const url = referenceUrl(body);
  if (file && url) throw new ParamError('input_reference', 'input_reference: send the image or its image_url, not both');
  if (file && !sniffImage(file.data)) {
    throw new ApiError(400, 'invalid_input', 'input_reference: the upload is not an image (PNG, JPEG, WebP or GIF)', {
      field: 'input_reference',
    });
  }
  const fingerprintBody = { ...body, ...(file ? { input_reference_file: fileDigest('input_reference', file.data) } : {}) };
  const run = await startOnce(ctx, services, 'POST /v1/videos', fingerprintBody, async () => {
    const model = videoModelFor(body.model);
    const ignored: string[] = [];
    const request: GenerateRequest<UploadedImage> = {
      model: model.slug,
      ...fallbacksOf(model.slug, body.models),
      prompt: body.prompt,
      size: body.size ?? undefined,
      duration: body.seconds === null || body.seconds === undefined ? undefined : Number(body.seconds),
    };
    const reference = file ? { file: { data: file.data, field: 'input_reference' } } : url ? { url } : undefined;
    if (reference && model.category === 'video' && model.config.image_input === 'none') ignored.push('input_reference');
    else if (reference) request.images = { image_url: reference };
    const fitted = fitRequest(model, request, VIDEO_NAMES);
    // The core names the first frame `image_url`, as /api/v2/generate does; here it is `input_reference`.
    const command = await withWireNames({ image_url: 'input_reference' }, async () => commandFromRequest(fitted.request));
    const ids = await runCommand(ctx, services, command);
    return { ids, ignored: [...ignored, ...wireNames(fitted.ignored, VIDEO_NAMES)] };
  });
  const video = await services.generations.get(authOf(ctx).userId, run.generation_ids[0]!);
  setIgnored(ctx, run.ignored, [video], VIDEO_VENDOR_NAMES);
  ctx.set('X-Token-Balance', String(await services.profiles.totalTokens(authOf(ctx).userId)));
  ctx.body = videoObject(video);
}

/** The caller's video generation named by the path (a restricted key sees only its own). @throws NotFoundError */
async function videoOf(ctx: ParameterizedContext, services: MediaServices): Promise<GenerationRecord> {
  const id = generationIdOfVideo(String(ctx.params.id));
  if (id === undefined) throw new NotFoundError('Video');
  const g = await services.generations.get(authOf(ctx).userId, id, ownReadsOf(ctx));
  if (g.category !== 'video' || g.resultDeletedAt) throw new NotFoundError('Video');
  return g;
}

async function content(ctx: ParameterizedContext, services: MediaServices): Promise<void> {
  const variant = ctx.query.variant;
  if (variant !== undefined && variant !== 'video') {
    throw new ParamError('variant', 'variant: only `video` is offered (no thumbnails or spritesheets are made)');
  }
  const g = await videoOf(ctx, services);
  if (g.status === 'pending') throw new GenerationPendingError(g.id);
  const file = g.status === 'completed' && g.resultKey ? await services.resultFiles.open(g.resultKey) : undefined;
  if (file?.state !== 'stored') throw new NotFoundError('Video content');
  ctx.type = file.object.mime;
  ctx.length = file.object.size;
  ctx.body = file.object.stream ?? file.object.data;
}

async function remove(ctx: ParameterizedContext, services: MediaServices): Promise<void> {
  const g = await videoOf(ctx, services);
  await services.resultFiles.deleteFor(authOf(ctx).userId, g.id);
  ctx.body = { id: `video_${g.id}`, object: 'video.deleted', deleted: true };
}

/** The caller's videos, a page at a time (the SDK's `videos.list` follows `last_id` while `has_more`). */
async function list(ctx: ParameterizedContext, services: MediaServices): Promise<void> {
  const query = parseInput(videoListQuery, ctx.query, 'query');
  const afterId = query.after === undefined ? undefined : generationIdOfVideo(query.after);
  if (query.after !== undefined && afterId === undefined) throw new ParamError('after', 'after: not a video id');
  const page = await services.generations.listOfCategory(authOf(ctx).userId, 'video', {
    afterId,
    limit: query.limit,
    order: query.order,
    onlyKey: ownReadsOf(ctx),
  });
  const data = page.items.map((g) => videoObject(g));
  ctx.body = {
    object: 'list',
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: page.hasMore,
  };
}

/** The Videos API routes. */
export function registerVideoRoutes(router: Router, services: MediaServices): void {
  router.post('/videos', (ctx) => create(ctx, services));
  router.get('/videos', (ctx) => list(ctx, services));
  router.get('/videos/:id', async (ctx) => {
    ctx.body = videoObject(await videoOf(ctx, services));
  });
  router.get('/videos/:id/content', (ctx) => content(ctx, services));
  router.delete('/videos/:id', (ctx) => remove(ctx, services));
}
