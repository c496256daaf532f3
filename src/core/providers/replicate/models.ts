import type { SlugOf } from '../../catalog/models';
import type { RequestForSlug } from '../slug-requests';
import type { OptionalOption } from '../warnings';
import { InputFile, MediaRequest, ProviderError } from '../types';
import { FileRef } from './uploads';

/**
 * How each catalog slug runs on Replicate. Official models are created with
 * POST /v1/models/{owner}/{name}/predictions (no version); community models need a pinned version with
 * POST /v1/predictions. Input names follow each model's published input schema.
 */

export type ReplicateTarget = { kind: 'official'; model: string } | { kind: 'version'; model: string; version: string };

export interface ReplicateModel<R extends MediaRequest = MediaRequest> {
  target: ReplicateTarget;
  /** `ref` turns an input file into what the input field carries (a data URI, or an uploaded file's URL). */
  input(req: R, ref: FileRef): Record<string, unknown>;
  /** The optional request options `input` passes on; any other one set on the request is reported as left out. */
  uses?: readonly OptionalOption[];
}

type WithImages = { slug: string; images?: InputFile[] };

/** Pinned versions of the community models (owner/name:version on replicate.com). */
export const REPLICATE_VERSIONS = {
  sdxl: '7762fd07cf82c948538e41f63f77d685e02b063e37e496e96eefd46c929f9bdc',
  musicgen: '671ac645ce5e552cc63a54a2bbff63fcf798043055d2dac5fc9e36a837eedcfb',
  realEsrgan: '42fed1c4974146d4d2414e2be2c5277c7fcf05fcc3a73abf41610695738c1d7b',
  faceSwap: '278a81e7ebb22db98bcba54de985d22cc1abeead2754eb1f2af717247be69b34',
  backgroundRemover: 'a029dff38972b5fda4ec5d75d7d1cd25aeff621d2cf4946a41055d7db66b80bc',
  styleTransfer: 'f1023890703bc0a5a3a2c21b5e498833be5f6ef6e70e9daf6b9b3a4fd8309cf0',
  ddcolor: 'ca494ba129e44e45f661d6ece83c4c98a9a7c774309beca01429b58fce8aa695',
} as const;

const official = (model: string): ReplicateTarget => ({ kind: 'official', model });
const pinned = (model: string, version: string): ReplicateTarget => ({ kind: 'version', model, version });

/** Drops undefined values so the vendor applies its own defaults. */
function compact(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

function dims(size: string | undefined): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(size ?? '');
  return m ? { width: Number(m[1]), height: Number(m[2]) } : { width: 1024, height: 1024 };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function ratio(size: string | undefined, fallback: string): string {
  if (/^\d+:\d+$/.test(size ?? '')) return size as string;
  const m = /^(\d+)x(\d+)$/.exec(size ?? '');
  if (!m) return fallback;
  const d = gcd(Number(m[1]), Number(m[2]));
  return `${Number(m[1]) / d}:${Number(m[2]) / d}`;
}

function image(req: WithImages, ref: FileRef, index: number, what: string): string {
  const file = req.images?.[index];
  if (!file) throw new ProviderError('bad_request', `${req.slug} needs ${what}`, 'replicate');
  return ref(file);
}

const optionalImage = (req: WithImages, ref: FileRef) => (req.images?.[0] ? ref(req.images[0]) : undefined);
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** Keyed by the catalog's replicate slugs, each entry typed with its category's request. */
export const REPLICATE_MODELS: { [S in SlugOf<'replicate'>]: ReplicateModel<RequestForSlug<S>> } = {
  sdxl: {
    uses: ['negativePrompt', 'seed'],
    target: pinned('stability-ai/sdxl', REPLICATE_VERSIONS.sdxl),
    input: (req, ref) =>
      compact({ prompt: req.prompt, negative_prompt: req.negativePrompt, ...dims(req.size), num_outputs: 1, seed: req.seed }),
  },
  'sd-3.5-large': {
    uses: ['negativePrompt', 'seed'],
    target: official('stability-ai/stable-diffusion-3.5-large'),
    input: (req, ref) =>
      compact({
        prompt: req.prompt,
        negative_prompt: req.negativePrompt,
        aspect_ratio: ratio(req.size, '1:1'),
        seed: req.seed,
        output_format: 'png',
      }),
  },
  'kling-v2.1': {
    uses: ['negativePrompt'],
    target: official('kwaivgi/kling-v2.1'),
    // Kling v2.1 on Replicate is image-to-video: start_image is required.
    input: (req, ref) =>
      compact({
        prompt: req.prompt,
        negative_prompt: req.negativePrompt,
        start_image: image(req, ref, 0, 'a start image (image_url)'),
        duration: (req.durationSeconds ?? 5) > 7 ? 10 : 5,
        mode: 'standard',
      }),
  },
  'hailuo-02': {
    target: official('minimax/hailuo-02'),
    // 10 s clips exist only at 768p, so 768p serves both lengths.
    input: (req, ref) =>
      compact({
        prompt: req.prompt,
        first_frame_image: optionalImage(req, ref),
        duration: (req.durationSeconds ?? 6) > 8 ? 10 : 6,
        resolution: '768p',
        prompt_optimizer: true,
      }),
  },
  'wan-2.2': {
    uses: ['seed'],
    target: official('wan-video/wan-2.2-t2v-fast'),
    input: (req, ref) =>
      compact({
        prompt: req.prompt,
        aspect_ratio: ratio(req.size, '16:9') === '9:16' ? '9:16' : '16:9',
        resolution: '480p',
        num_frames: 81,
        frames_per_second: 16,
        seed: req.seed,
      }),
  },
  'seedance-1-pro': {
    uses: ['seed'],
    target: official('bytedance/seedance-1-pro'),
    input: (req, ref) =>
      compact({
        prompt: req.prompt,
        image: optionalImage(req, ref),
        duration: Math.round(clamp(req.durationSeconds ?? 5, 2, 12)),
        resolution: '1080p',
        aspect_ratio: ratio(req.size, '16:9'),
        seed: req.seed,
      }),
  },
  musicgen: {
    uses: ['seed'],
    target: pinned('meta/musicgen', REPLICATE_VERSIONS.musicgen),
    input: (req, ref) =>
      compact({
        prompt: req.prompt,
        duration: Math.round(clamp(req.durationSeconds ?? 30, 1, 120)),
        model_version: 'stereo-large',
        // MP3 unless WAV is asked for: Telegram's music player (and most clients) want MP3.
        output_format: req.audioFormat === 'wav' ? 'wav' : 'mp3',
        normalization_strategy: 'peak',
        seed: req.seed,
      }),
  },
  upscale: {
    target: pinned('nightmareai/real-esrgan', REPLICATE_VERSIONS.realEsrgan),
    input: (req, ref) => ({ image: image(req, ref, 0, 'an image'), scale: req.scale === 4 ? 4 : 2, face_enhance: false }),
  },
  'face-swap': {
    target: pinned('codeplugtech/face-swap', REPLICATE_VERSIONS.faceSwap),
    // images = [source face, target photo]: the face from swap_image goes into input_image.
    input: (req, ref) => ({
      input_image: image(req, ref, 1, 'a target image (target_image_url)'),
      swap_image: image(req, ref, 0, 'a source face image (source_image_url)'),
    }),
  },
  'remove-bg': {
    target: pinned('851-labs/background-remover', REPLICATE_VERSIONS.backgroundRemover),
    input: (req, ref) => ({ image: image(req, ref, 0, 'an image'), format: 'png', background_type: 'rgba' }),
  },
  'style-transfer': {
    target: pinned('fofr/style-transfer', REPLICATE_VERSIONS.styleTransfer),
    // The model copies structure from structure_image and style from style_image (required) + the prompt.
    // With only one image we use it for both and let the prompt describe the style.
    input: (req, ref) => ({
      structure_image: image(req, ref, 0, 'an image'),
      style_image: req.images?.[1] ? ref(req.images[1]) : image(req, ref, 0, 'an image'),
      prompt: req.prompt ?? '',
      model: 'fast',
      number_of_images: 1,
      output_format: 'png',
    }),
  },
  colorize: {
    target: pinned('piddnad/ddcolor', REPLICATE_VERSIONS.ddcolor),
    input: (req, ref) => ({ image: image(req, ref, 0, 'an image'), model_size: 'large' }),
  },
};

export function replicateModel(slug: string): ReplicateModel {
  // Each entry takes its slug's request; the catalog guarantees the request of `slug` is that one.
  const model = Object.hasOwn(REPLICATE_MODELS, slug) ? (REPLICATE_MODELS[slug as SlugOf<'replicate'>] as ReplicateModel) : undefined;
  if (!model) throw new ProviderError('bad_request', `replicate has no mapping for ${slug}`, 'replicate');
  return model;
}
