// The door-neutral generate request and its normalisation for one catalog model. Each door parses its own wire
// format into a GenerateRequest (the HTTP door: src/api/v2/generate-body.ts; the bot: its wizards); the model's
// rules (normalize/) decide which options apply. An option the model does not take is an error naming the field
// as the API calls it (never silently ignored, so a client learns its request was not what it meant).
import { ModelRetiredError } from './errors';
import { resolveModel } from './lifecycle';
import type { GenerateCommand } from './command';
import { normalizeForModel } from './normalize/by-category';
import type { ImageField, ImageFormat, ImageQuality, ImageStyle, ModelDefinition } from './types';

export { ParamError } from './errors';
export { MAX_PROMPT_LENGTH } from './limits';

/** An input image as a door hands it over: a URL to fetch, or a file of type F it already holds. */
export type ImageSource<F> = { url: string } | { file: F };

/** What a caller asks a media or tool model for, before the model's rules apply. Absent means not given. */
export interface GenerateRequest<F = never> {
  /** The slug asked for; a retired one resolves to its replacement. */
  model: string;
  /** Models to run instead, in order, when `model` cannot serve before its first byte; each takes the same options. */
  fallbacks?: string[];
  prompt?: string;
  /** An empty string counts as not given. */
  negativePrompt?: string;
  size?: string;
  /** Output format of image results (taken by every model, used only for images). */
  format?: ImageFormat;
  quality?: ImageQuality;
  style?: ImageStyle;
  seed?: number;
  /** Seconds of music or video. */
  duration?: number;
  voiceId?: string;
  speed?: number;
  /** Speech and music output format, e.g. `mp3`. */
  audioFormat?: string;
  /** Upscale factor. */
  scale?: number;
  /** Input images by the request field that carries them. */
  images?: Partial<Record<ImageField, ImageSource<F>>>;
}

export interface NormalizedParams {
  /** Empty only for tools that need no prompt. */
  prompt: string;
  negativePrompt?: string;
  /** `WxH` or an aspect ratio from the model's set; absent for models without a size choice. */
  size?: string;
  /** Output format of image results. */
  format: ImageFormat;
  quality: ImageQuality;
  style?: ImageStyle;
  seed?: number;
  /** Music (15..120, default 30) and video (the model's durations). */
  durationSeconds?: number;
  voiceId?: string;
  speed?: number;
  /** Speech and music output format, e.g. `mp3`. */
  audioFormat?: string;
  /** Upscale factor (2 or 4, default 2). */
  scale?: number;
}

/**
 * The request as a command: model lookup (a retired model resolves to its replacement, `replaced`) and the
 * model's rules. @throws ParamError, UnknownModelError, ModelRetiredError
 */
export function commandFromRequest<F = never>(request: GenerateRequest<F>): GenerateCommand<F> {
  const slugs = [...new Set([request.model, ...(request.fallbacks ?? [])])];
  if (slugs.length === 1) return commandForModel(request, request.model);
  // Each fallback must take the request; a retired one (without a replacement) is left out, as long as one serves.
  const commands: GenerateCommand<F>[] = [];
  let retired: unknown;
  for (const slug of slugs) {
    try {
      commands.push(commandForModel(request, slug));
    } catch (err) {
      if (!(err instanceof ModelRetiredError)) throw err;
      retired ??= err;
    }
  }
  const [first, ...fallbacks] = commands;
  if (!first) throw retired;
  if (fallbacks.length === 0) return first;
  return { ...first, fallbacks: fallbacks.map(({ model, replaced, params }) => ({ model, params, ...(replaced ? { replaced } : {}) })) };
}

function commandForModel<F>(request: GenerateRequest<F>, slug: string): GenerateCommand<F> {
  const { model, replacedFrom, shutdownAt } = resolveModel(slug);
  const replaced = replacedFrom !== undefined ? { from: replacedFrom, shutdownAt: shutdownAt ?? null } : undefined;
  return { model, ...normalizeForModel(model, request), ...(replaced ? { replaced } : {}) };
}

/** The model's rules on a request's options (the price check's view: no model lookup). @throws ParamError */
export function normalizeGenerateParams(model: ModelDefinition, request: GenerateRequest<unknown>): NormalizedParams {
  return normalizeForModel(model, request).params;
}
