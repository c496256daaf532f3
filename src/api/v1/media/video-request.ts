// OpenAI's Videos API: the create request (JSON or multipart) read for the core, and a video generation as OpenAI's
// Video object.
import { z } from 'zod';
import { listModels } from '../../../core/catalog/catalog';
import { ParamError } from '../../../core/catalog/errors';
import { resolveModel } from '../../../core/catalog/lifecycle';
import type { ModelDefinition } from '../../../core/catalog/types';
import { PROVIDER_ERROR_CODES, type ProviderErrorKind } from '../../../core/providers/types';
import type { GenerationRecord } from '../../../core/records';
import { fallbackModels } from '../fallback-models';
import type { OptionNames } from './run';

/** What each core option is called in the Videos API. */
export const VIDEO_NAMES: OptionNames = { size: 'size', duration: 'seconds', seed: 'seed', negativePrompt: 'negative_prompt' };

/** /api/v2 names of the options a vendor may leave out, as the Videos API calls them. */
export const VIDEO_VENDOR_NAMES: Readonly<Record<string, string>> = { seed: 'seed', negative_prompt: 'negative_prompt' };

/** An input image by reference: a public http(s) URL, a result of this service, or a `data:` URI. */
const imageReference = z.strictObject({
  image_url: z
    .string()
    .trim()
    .min(1)
    .max(30 * 1024 * 1024)
    .optional(),
  file_id: z.string().optional().describe('not offered (no file store): a 400'),
});

/** The create request; multipart fields arrive as strings (`seconds`), JSON as OpenAI's SDKs send it. */
export const videoCreateBody = z.strictObject({
  prompt: z.string().describe('what the clip shows; required, not empty'),
  model: z.string().trim().min(1).nullish().describe('a catalog video model; default: the first Starter one'),
  models: fallbackModels.nullish().describe('JSON bodies only: models to try in order when `model` cannot serve before its first byte'),
  seconds: z
    .union([
      z.number().int(),
      z
        .string()
        .trim()
        .regex(/^\d{1,3}$/, 'must be a whole number of seconds'),
    ])
    .nullish()
    .describe(
      'a duration of the model (config.durations); default: the model’s. One only other video models offer gives way to the model’s nearest (named in X-Ignored-Parameters); one no catalog model offers is a 400',
    ),
  size: z
    .string()
    .trim()
    .toLowerCase()
    .max(32)
    .nullish()
    .describe('WxH (`1280x720`) or W:H: read as its aspect ratio, which a model of the catalog must offer'),
  input_reference: imageReference.nullish().describe('the first frame, by URL (multipart: a file, or input_reference[image_url])'),
  'input_reference[image_url]': z.string().trim().min(1).nullish(),
  'input_reference[file_id]': z.string().nullish(),
});
export type VideoCreateBody = z.infer<typeof videoCreateBody>;

/** The video model of a request; none: the first Starter video model. @throws UnknownModelError, ParamError */
export function videoModelFor(slug: string | null | undefined): ModelDefinition {
  const videos = listModels({ category: 'video' });
  if (!slug) return videos.find((m) => m.minPlan === 'free') ?? videos[0]!;
  const { model } = resolveModel(slug);
  if (model.category !== 'video') {
    throw new ParamError('model', `${slug} is not a video model; use one of: ${videos.map((m) => m.slug).join(', ')}`);
  }
  return model;
}

/** The reference image's URL, if any. @throws ParamError for a file id (there is no file store to read it from) */
export function referenceUrl(body: VideoCreateBody): string | undefined {
  if (body.input_reference?.file_id || body['input_reference[file_id]']) {
    throw new ParamError('input_reference', 'input_reference: file ids are not offered; send the image itself or its image_url');
  }
  return body.input_reference?.image_url ?? body['input_reference[image_url]'] ?? undefined;
}

/** GET /v1/videos: a page after a video id, newest first unless `order` is `asc`. */
export const videoListQuery = z.object({
  after: z.string().max(32).optional().describe('the id of the last video of the previous page'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
});

/** `video_42` (or the generation's own `42`) as a generation id; undefined for anything else. */
export function generationIdOfVideo(id: string): number | undefined {
  const m = /^(?:video_)?(\d{1,10})$/.exec(id);
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) && n > 0 && n <= 2_147_483_647 ? n : undefined;
}

const unix = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);

/** OpenAI's job states over the generation's: queued until the vendor took it, then in progress. */
function status(g: GenerationRecord): 'queued' | 'in_progress' | 'completed' | 'failed' {
  if (g.status === 'completed' || g.status === 'failed') return g.status;
  return g.upstreamJobId ? 'in_progress' : 'queued';
}

/** How far along a running job is, from its typical time (never 100 before it is done). */
function progress(g: GenerationRecord, now: number): number {
  if (g.status === 'completed') return 100;
  if (g.status === 'failed' || !g.upstreamJobId) return 0;
  const eta = Math.max(1, g.etaSeconds ?? 60) * 1000;
  return Math.min(95, Math.max(1, Math.round(((now - g.createdAt.getTime()) / eta) * 100)));
}

/** The generation as OpenAI's Video object. */
export function videoObject(g: GenerationRecord, now = Date.now()): Record<string, unknown> {
  const params = g.params as { durationSeconds?: number; size?: string };
  const state = status(g);
  return {
    id: `video_${g.id}`,
    object: 'video',
    model: g.modelSlug,
    status: state,
    progress: progress(g, now),
    created_at: unix(g.createdAt),
    completed_at: state === 'completed' ? unix(g.completedAt) : null,
    expires_at: state === 'completed' ? unix(g.expiresAt) : null,
    error:
      state === 'failed'
        ? { code: PROVIDER_ERROR_CODES[(g.errorKind ?? 'upstream') as ProviderErrorKind] ?? 'upstream_error', message: g.error ?? 'failed' }
        : null,
    prompt: g.prompt,
    remixed_from_video_id: null,
    seconds: String(g.durationSeconds ?? params.durationSeconds ?? ''),
    size: params.size ?? 'auto',
  };
}
