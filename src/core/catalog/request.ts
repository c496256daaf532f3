// The door-neutral generate request and the options a model's rules make of it: types only, so the rules
// (normalize/), the command and the parser can all name them without importing each other.
import type { ImageField, ImageFormat, ImageQuality, ImageStyle } from './types';

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
