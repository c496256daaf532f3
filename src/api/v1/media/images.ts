// POST /v1/images/generations and POST /v1/images/edits: OpenAI's Images API over the core's generations.
import type Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import type { UploadedImage } from '../../../core/catalog/command';
import { fitRequest } from '../../../core/catalog/fit';
import type { GenerateRequest } from '../../../core/catalog/params';
import { commandFromRequest } from '../../../core/catalog/params';
import type { ModelDefinition } from '../../../core/catalog/types';
import { MAX_INPUT_IMAGE_BYTES } from '../../../core/generations/media/inputs';
import { sniffImage } from '../../../core/media/sniff';
import type { GenerationRecord } from '../../../core/records';
import { resultUrl } from '../../../core/generations/result-url';
import { fileDigest } from '../../idempotent';
import { ApiError } from '../../middleware/errors';
import { readJsonBody } from '../../middleware/json-body';
import { readMultipart, type UploadedFile } from '../../middleware/multipart';
import { parseInput } from '../../middleware/validation';
import {
  IMAGE_NAMES,
  IMAGE_VENDOR_NAMES,
  ignoredLabels,
  imageEditFields,
  imageGenerationBody,
  imageModelFor,
  imageRequest,
  refuseStreaming,
  type ImageEditFields,
  type ImageGenerationBody,
} from './image-request';
import { billing, finishedGenerations, type MediaServices, resultBytes, runCommand, setIgnored, startOnce, wireNames } from './run';

/** OpenAI takes up to 16 input images on an edit; each here is capped like every input image. */
const MAX_EDIT_IMAGES = 16;

/** OpenAI's names of the two qualities (`standard` is its `medium`, `hd` its `high`). */
const QUALITY_NAMES = { standard: 'medium', hd: 'high' } as const;

async function imageData(services: MediaServices, g: GenerationRecord, format: 'url' | 'b64_json'): Promise<Record<string, string>> {
  if (format === 'url') return { url: resultUrl(services.config.links, g) ?? '' };
  return { b64_json: (await resultBytes(services, g)).data.toString('base64') };
}

/** The ImagesResponse of finished generations, with the `service` object the other /v1 answers carry. */
async function imagesResponse(
  ctx: ParameterizedContext,
  services: MediaServices,
  generations: GenerationRecord[],
  body: ImageGenerationBody | ImageEditFields,
): Promise<Record<string, unknown>> {
  const format = body.response_format ?? 'b64_json';
  const first = generations[0]!;
  const meta = first.resultMetadata ?? {};
  const params = first.params as { format?: string; quality?: 'standard' | 'hd' };
  return {
    created: Math.floor((first.completedAt ?? first.createdAt).getTime() / 1000),
    data: await Promise.all(generations.map((g) => imageData(services, g, format))),
    background: 'opaque',
    output_format: params.format ?? 'png',
    quality: QUALITY_NAMES[params.quality ?? 'standard'],
    ...(typeof meta.width === 'number' && typeof meta.height === 'number' ? { size: `${meta.width}x${meta.height}` } : {}),
    service: await billing(ctx, services, generations),
  };
}

/** Runs the fitted request and answers with its images. */
async function runImages(
  ctx: ParameterizedContext,
  services: MediaServices,
  route: string,
  fingerprintBody: unknown,
  body: ImageGenerationBody | ImageEditFields,
  prepare: () => { request: GenerateRequest<UploadedImage>; model: ModelDefinition; ignored: string[]; maskSameSize?: boolean },
): Promise<void> {
  const run = await startOnce(ctx, services, route, fingerprintBody, async () => {
    const { request, model, ignored, maskSameSize } = prepare();
    const fitted = fitRequest(model, request, IMAGE_NAMES);
    const command = commandFromRequest(fitted.request);
    if (maskSameSize) command.inputs = { ...command.inputs, maskField: 'mask', maskSameSize };
    const ids = await runCommand(ctx, services, command, body.n ?? 1);
    return { ids, ignored: [...ignored, ...wireNames(fitted.ignored, IMAGE_NAMES)] };
  });
  const generations = await finishedGenerations(ctx, services, run.generation_ids);
  setIgnored(ctx, run.ignored, generations, IMAGE_VENDOR_NAMES);
  ctx.body = await imagesResponse(ctx, services, generations, body);
}

async function generations(ctx: ParameterizedContext, services: MediaServices): Promise<void> {
  const body = parseInput(imageGenerationBody, await readJsonBody(ctx), 'body');
  refuseStreaming(body);
  await runImages(ctx, services, 'POST /v1/images/generations', body, body, () => {
    const model = imageModelFor(body.model, 'generations');
    return { model, request: imageRequest(model.slug, body), ignored: ignoredLabels(body) };
  });
}

/** An uploaded file that must be an image (OpenAI answers 400 for any other upload). */
function uploadedImage(file: UploadedFile, field: string): UploadedImage {
  if (!sniffImage(file.data)) {
    throw new ApiError(400, 'invalid_input', `${field}: the upload is not an image (PNG, JPEG, WebP or GIF)`, { field });
  }
  return { data: file.data, field };
}

async function edits(ctx: ParameterizedContext, services: MediaServices): Promise<void> {
  const form = await readMultipart(ctx, {
    maxFileBytes: MAX_INPUT_IMAGE_BYTES,
    fileFields: ['image', 'image[]', 'mask'],
    maxFiles: MAX_EDIT_IMAGES + 1,
  });
  const body = parseInput(imageEditFields, form.fields, 'body');
  refuseStreaming(body);
  const images = [...(form.fileLists.image ?? []), ...(form.fileLists['image[]'] ?? [])];
  const imageField = form.fileLists.image ? 'image' : 'image[]';
  if (images.length === 0) throw new ApiError(400, 'validation_error', 'image: an image file is required', { field: 'image' });
  if (images.length > 1) {
    throw new ApiError(400, 'validation_error', `${imageField}: the catalog's editing models take one input image`, { field: imageField });
  }
  const image = uploadedImage(images[0]!, imageField);
  const mask = form.files.mask && uploadedImage(form.files.mask, 'mask');
  const fingerprintBody = {
    ...body,
    image: fileDigest('image', image.data),
    ...(mask ? { mask: fileDigest('mask', mask.data) } : {}),
  };
  await runImages(ctx, services, 'POST /v1/images/edits', fingerprintBody, body, () => {
    const model = imageModelFor(body.model, 'edits', mask !== undefined);
    const ignored = ignoredLabels(body);
    const request: GenerateRequest<UploadedImage> = imageRequest(model.slug, body);
    if (model.category === 'tool') {
      // An inpainting tool repaints what the mask leaves transparent (or, without one, the image's transparent area);
      // it keeps the image's own size.
      if (request.size !== undefined) ignored.push('size');
      delete request.size;
      request.images = { 'params.image_url': { file: image }, ...(mask ? { 'params.mask_url': { file: mask } } : {}) };
      return { model, request, ignored, maskSameSize: true };
    }
    request.images = { image_url: { file: image } };
    if (mask) ignored.push('mask');
    return { model, request, ignored };
  });
}

/** The Images API routes. */
export function registerImageRoutes(router: Router, services: MediaServices): void {
  router.post('/images/generations', (ctx) => generations(ctx, services));
  router.post('/images/edits', (ctx) => edits(ctx, services));
}
