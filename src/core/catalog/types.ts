// Types of the model catalog. The data lives in models.ts; lookups in catalog.ts; prices in pricing.ts.
import type { ProviderName, ReasoningEffort } from '../providers/types';

export const CATEGORIES = ['text', 'image', 'video', 'tts', 'stt', 'music', 'tool'] as const;
export type Category = (typeof CATEGORIES)[number];

export const PLAN_SLUGS = ['free', 'basic', 'pro', 'vip', 'elite'] as const;
export type PlanSlug = (typeof PLAN_SLUGS)[number];

export const PLAN_LEVEL: Readonly<Record<PlanSlug, number>> = Object.freeze({
  free: 0,
  basic: 1,
  pro: 2,
  vip: 3,
  elite: 4,
});

/** Output formats of image results (our sharp post-processing converts to them). */
export const IMAGE_FORMATS = ['webp', 'png', 'jpeg'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export const IMAGE_QUALITIES = ['standard', 'hd'] as const;
export type ImageQuality = (typeof IMAGE_QUALITIES)[number];

export const IMAGE_STYLES = ['vivid', 'natural'] as const;
export type ImageStyle = (typeof IMAGE_STYLES)[number];

/** Whether a model takes an input image (`image_url` / `params.image_url`). */
export type ImageInput = 'none' | 'optional' | 'required';

// ---------- pricing (derived from the vendors' list prices by price-rule.ts; every price is an integer >= 1) ----------

export interface FixedPricing {
  kind: 'fixed';
  tokens: number;
}

/** Images: tokens per image by size class (square, or width != height) and quality; a request rounds up. */
export interface ImagePricing {
  kind: 'image';
  square: Partial<Record<ImageQuality, number>>;
  nonSquare: Partial<Record<ImageQuality, number>>;
}

/** Video: priced per second of output; only the listed durations are accepted. */
export interface DurationPricing {
  kind: 'duration';
  perSecond: number;
  allowedSeconds: number[];
  defaultSeconds: number;
}

/** Speech synthesis: priced per 1000 input characters, never below `min`. */
export interface CharactersPricing {
  kind: 'characters';
  tokensPer1000: number;
  min: number;
}

/** Text chat: priced on the real prompt/completion token usage after the call, never below `min`. */
export interface UsagePricing {
  kind: 'usage';
  /** Tokens (our credit) per 1000 prompt tokens (the model's context tokens). */
  inputPer1k: number;
  /** Per 1000 prompt tokens read from the vendor's prompt cache. */
  cachedInputPer1k: number;
  /** Per 1000 prompt tokens written to the prompt cache (the input rate where the vendor bills no write). */
  cacheWritePer1k: number;
  /** Tokens (our credit) per 1000 completion tokens. */
  outputPer1k: number;
  min: number;
}

export type PricingRule = FixedPricing | ImagePricing | DurationPricing | CharactersPricing | UsagePricing;

// ---------- per-category capabilities (published as `config` in the API, hence snake_case) ----------

export interface TextConfig {
  supports_vision: boolean;
  max_context: number;
  /** Upper bound the vendor accepts for `max_tokens`. */
  max_output_tokens: number;
  /** Used when the request gives no `max_tokens` (larger for models that think before answering). */
  default_max_tokens: number;
  /** The model has a reasoning control that `reasoning_effort` maps to; elsewhere the parameter is ignored. */
  supports_reasoning_effort: boolean;
}

export interface ImageConfig {
  sizes: string[];
  default_size: string;
  formats: ImageFormat[];
  supports_negative_prompt: boolean;
  qualities: ImageQuality[];
  /** Empty when the model takes no `style`. */
  styles: ImageStyle[];
  image_input: ImageInput;
}

export interface VideoConfig {
  /** Aspect ratios; empty when the output follows the input image or the vendor's fixed frame. */
  sizes: string[];
  default_size: string | null;
  durations: number[];
  default_duration: number;
  supports_negative_prompt: boolean;
  image_input: ImageInput;
}

export interface SpeedRange {
  min: number;
  max: number;
}

export interface TtsConfig {
  /** Allowed `params.voice_id` values; null when any vendor voice id is accepted. */
  voices: string[] | null;
  default_voice: string;
  /** Allowed `params.format` values. */
  audio_formats: string[];
  default_audio_format: string;
  /** Allowed `params.speed` range; null when the model takes no speed. */
  speed: SpeedRange | null;
}

export interface SttConfig {
  supports_diarization: boolean;
  /** Translates speech into English text (POST /v1/audio/translations). */
  supports_translation: boolean;
  /** The language is detected when the request names none. */
  language_detection: boolean;
  audio_formats: string[];
  max_file_mb: number;
}

export interface MusicConfig {
  min_duration: number;
  max_duration: number;
  default_duration: number;
  audio_formats: string[];
  default_audio_format: string;
}

export interface ToolConfig {
  /** `image`: one input image; `image_pair`: face-swap's source and target. */
  input: 'image' | 'image_pair';
  requires_prompt: boolean;
  /** What the tool answers with: a file (`result_url`) or text (`result_text`). */
  result: 'image' | 'text';
  /** Image output formats; empty for text results. */
  formats: ImageFormat[];
  /** Upscale factors (`params.scale`); empty for other tools. */
  scales: number[];
  /** Whether `params.mask_url` is accepted (inpaint). */
  supports_mask: boolean;
}

export type ModelConfig = TextConfig | ImageConfig | VideoConfig | TtsConfig | SttConfig | MusicConfig | ToolConfig;

/** The request fields that carry an input image (named in errors about that image). */
export const IMAGE_FIELDS = [
  'image_url',
  'params.image_url',
  'params.source_image_url',
  'params.target_image_url',
  'params.mask_url',
] as const;
export type ImageField = (typeof IMAGE_FIELDS)[number];

/** How a tool is used, beyond its published `config`: what the doors ask for and how its result is handed over. */
export interface ToolRules {
  /** The request fields of its input images, in the order the tool takes them (and a wizard asks for them). */
  inputFields: readonly ImageField[];
  /** What its prompt describes: nothing (no prompt), a style to apply, or the change to paint. */
  promptKind: 'none' | 'style' | 'edit';
  /** Image results go out as files, untouched (a messenger would recompress a photo and drop its transparency). */
  resultAsDocument: boolean;
}

// ---------- model definitions ----------

interface ModelBase<C extends Category, Cfg extends ModelConfig, P extends PricingRule> {
  slug: string;
  name: string;
  category: C;
  provider: ProviderName;
  /** The id sent to the vendor. */
  upstreamModel: string;
  descriptionEn: string;
  minPlan: PlanSlug;
  supportsStreaming: boolean;
  /** sync: the request waits for the result; async: answered `pending`, finished by a durable job. */
  execution: 'sync' | 'async';
  /** Typical processing time, reported as `eta_seconds` on pending results. */
  etaSeconds: number;
  config: Cfg;
  pricing: P;
  /** The vendor's announced end of life, when there is one (sources in test/fixtures/SOURCES.md). */
  lifecycle?: ModelLifecycle;
}

/** Dates are ISO `YYYY-MM-DD`, as the vendor's deprecation page gives them. */
export interface ModelLifecycle {
  deprecatedAt?: string;
  shutdownAt?: string;
  /** The catalog slug that serves this model's requests once it is retired (past `shutdownAt`, or gone). */
  replacement?: string;
}

/**
 * A slug the catalog no longer offers (the vendor shut its model down): kept so that clients still using it are
 * served by its replacement. It has no prices or options of its own; it is never listed.
 */
export interface RetiredAlias {
  slug: string;
  name: string;
  category: Category;
  provider: ProviderName;
  upstreamModel: string;
  lifecycle: { deprecatedAt?: string; shutdownAt: string; replacement: string };
  /** What the retired name meant that its replacement must be asked for (deepseek-reasoner: thinking mode). */
  reasoningEffort?: ReasoningEffort;
}

export type TextModel = ModelBase<'text', TextConfig, UsagePricing>;
export type ImageModel = ModelBase<'image', ImageConfig, ImagePricing>;
export type VideoModel = ModelBase<'video', VideoConfig, DurationPricing>;
export type TtsModel = ModelBase<'tts', TtsConfig, CharactersPricing>;
export type SttModel = ModelBase<'stt', SttConfig, FixedPricing>;
export type MusicModel = ModelBase<'music', MusicConfig, FixedPricing>;
export type ToolModel = ModelBase<'tool', ToolConfig, FixedPricing> & { rules: ToolRules };

export type ModelDefinition = TextModel | ImageModel | VideoModel | TtsModel | SttModel | MusicModel | ToolModel;

/** The API's Model object (GET /api/v2/models). `is_free` was removed (spec, Versioning). */
export interface PublicModel {
  slug: string;
  name: string;
  category: Category;
  provider: ProviderName;
  token_cost: number;
  min_token_cost: number;
  max_token_cost: number;
  min_plan: PlanSlug;
  /** null = Starter tier; otherwise the lowest plan slug that unlocks the model. */
  min_plan_slug: PlanSlug | null;
  description_en: string;
  supports_streaming: boolean;
  config: ModelConfig;
  /** The id the vendor knows the model by. */
  upstream_id: string;
  /** When the vendor deprecated the model (ISO date), or null. */
  deprecated_at: string | null;
  /** When the vendor shuts the model down (ISO date), or null when none is announced. */
  shutdown_at: string | null;
  /** The catalog slug that serves the model's requests once it is retired, or null. */
  replacement: string | null;
  /** Text models: tokens (our credit) per million model tokens; every request costs at least `min_token_cost`. */
  price_per_million_tokens?: PerMillionPrices;
}

/** A text model's rates in tokens (our credit) per million of the model's own tokens. */
export interface PerMillionPrices {
  input: number;
  cached_input: number;
  output: number;
}

export function isCategory(value: unknown): value is Category {
  return typeof value === 'string' && (CATEGORIES as readonly string[]).includes(value);
}

export function isPlanSlug(value: unknown): value is PlanSlug {
  return typeof value === 'string' && (PLAN_SLUGS as readonly string[]).includes(value);
}
