// The 52 models of the catalog (fixed list: slugs, providers, upstream ids, tiers, execution) with
// their capabilities. Their prices follow from each vendor's list price (providers/<vendor>/prices.ts) by the rule of
// price-rule.ts, with the overrides of house-prices.ts. Order here is the order of GET /api/v2/models.
import { vendorPrice } from '../providers/price-lists';
import type { ProviderName, ReasoningEffort } from '../providers/types';
import { HOUSE_PRICES } from './house-prices';
import { charactersPricing, durationPricing, fixedPricing, imagePricing, usagePricing } from './price-rule';
import type { ToolRules } from './types';
import {
  IMAGE_FORMATS,
  type ImageInput,
  type ImageModel,
  type ImageQuality,
  type ImageStyle,
  type ModelLifecycle,
  type ModelDefinition,
  type MusicModel,
  type PlanSlug,
  type RetiredAlias,
  type SttModel,
  type TextModel,
  type ToolModel,
  type TtsModel,
  type VideoModel,
} from './types';

/** A catalog entry whose slug and provider keep their literal types (see ModelSlug, SlugOf). */
type Keyed<M extends ModelDefinition, S extends string, P extends ProviderName> = M & { slug: S; provider: P };

/** The four size sets of the spec (`config.sizes`). C is a set of aspect ratios. */
export const SIZE_SETS = {
  A: ['1024x1024', '1024x1792', '1792x1024'],
  B: ['1024x1024', '768x1344', '1344x768', '1024x1536', '1536x1024'],
  C: ['1:1', '2:3', '3:2', '9:16', '16:9'],
  D: ['1024x1024', '768x1344', '1344x768'],
} as const;
type SizeSet = keyof typeof SIZE_SETS;

const STARTER: PlanSlug = 'free';
const BASIC: PlanSlug = 'basic';

// ---------- text ----------

interface TextSpec {
  slug: string;
  name: string;
  provider: ProviderName;
  upstream?: string;
  plan: PlanSlug;
  vision: boolean;
  context: number;
  maxOutput: number;
  /** Models that reason before answering get a larger default `max_tokens`. */
  reasoning?: boolean;
  /** The vendor has a reasoning control for it (effort, thinking budget or level, thinking mode). */
  reasoningControl?: boolean;
  /** The least a request costs, in tokens. */
  min: number;
  description: string;
}

function text<S extends string, P extends ProviderName>(s: TextSpec & { slug: S; provider: P }): Keyed<TextModel, S, P> {
  return {
    slug: s.slug,
    name: s.name,
    category: 'text',
    provider: s.provider,
    upstreamModel: s.upstream ?? s.slug,
    descriptionEn: s.description,
    minPlan: s.plan,
    supportsStreaming: true,
    execution: 'sync',
    etaSeconds: s.reasoning ? 20 : 5,
    config: {
      supports_vision: s.vision,
      max_context: s.context,
      max_output_tokens: s.maxOutput,
      default_max_tokens: Math.min(s.reasoning ? 16384 : 4096, s.maxOutput),
      supports_reasoning_effort: s.reasoningControl ?? false,
    },
    pricing: usagePricing(vendorPrice(s.provider, s.upstream ?? s.slug), s.min, HOUSE_PRICES[s.slug]),
  };
}

const TEXT_MODELS = [
  text({
    slug: 'gpt-6-luna',
    name: 'GPT-6 Luna',
    provider: 'openai',
    plan: STARTER,
    vision: true,
    context: 1050000,
    maxOutput: 128000,
    reasoning: true,
    reasoningControl: true,
    min: 1,
    description: 'Fast, inexpensive GPT-6 model for everyday chat, with image understanding.',
  }),
  text({
    slug: 'gpt-5.6-luna',
    name: 'GPT-5.6 Luna',
    provider: 'openai',
    plan: STARTER,
    vision: true,
    context: 1050000,
    maxOutput: 128000,
    reasoning: true,
    reasoningControl: true,
    min: 1,
    description: 'Cost-efficient GPT-5.6 model for high-volume, well-defined tasks.',
  }),
  text({
    slug: 'gpt-6.1-sol',
    name: 'GPT-6.1 Sol',
    provider: 'openai',
    plan: BASIC,
    vision: true,
    context: 1050000,
    maxOutput: 128000,
    reasoning: true,
    reasoningControl: true,
    min: 3,
    description: 'Reasoning model for complex coding, analysis and professional work.',
  }),
  text({
    slug: 'gpt-6.1-terra',
    name: 'GPT-6.1 Terra',
    provider: 'openai',
    plan: BASIC,
    vision: true,
    context: 1050000,
    maxOutput: 128000,
    reasoning: true,
    reasoningControl: true,
    min: 2,
    description: 'Fast, efficient GPT-6.1 model for visual reasoning and clear writing.',
  }),
  text({
    slug: 'gpt-5.6-terra',
    name: 'GPT-5.6 Terra',
    provider: 'openai',
    plan: BASIC,
    vision: true,
    context: 1050000,
    maxOutput: 128000,
    reasoning: true,
    reasoningControl: true,
    min: 2,
    description: 'Balanced GPT-5.6 reasoning model for everyday coding and agent tasks.',
  }),
  text({
    slug: 'gpt-6.2-sol',
    name: 'GPT-6.2 Sol',
    provider: 'openai',
    plan: BASIC,
    vision: true,
    context: 1050000,
    maxOutput: 128000,
    reasoning: true,
    reasoningControl: true,
    min: 3,
    description: "OpenAI's everyday GPT-6.2 model for conversation, writing, analysis and code.",
  }),
  text({
    slug: 'gpt-6.2-astra',
    name: 'GPT-6.2 Astra',
    provider: 'openai',
    plan: BASIC,
    vision: true,
    context: 1050000,
    maxOutput: 128000,
    reasoning: true,
    reasoningControl: true,
    min: 6,
    description: 'Most capable OpenAI model, for the hardest reasoning and programming work.',
  }),
  text({
    slug: 'claude-haiku-4-5',
    name: 'Claude Haiku 4.5',
    provider: 'anthropic',
    plan: STARTER,
    vision: true,
    context: 200000,
    maxOutput: 64000,
    reasoningControl: true,
    min: 1,
    description: 'Fast Claude model with vision and a 200K context.',
  }),
  text({
    slug: 'claude-sonnet-4-6',
    name: 'Claude Sonnet 4.6',
    provider: 'anthropic',
    plan: BASIC,
    vision: true,
    context: 1000000,
    maxOutput: 128000,
    reasoningControl: true,
    min: 3,
    description: 'Balanced Claude model, strong at coding and agents.',
  }),
  text({
    slug: 'claude-opus-4-8',
    name: 'Claude Opus 4.8',
    provider: 'anthropic',
    plan: BASIC,
    vision: true,
    context: 1000000,
    maxOutput: 128000,
    reasoningControl: true,
    min: 10,
    description: 'Most capable Claude model for demanding reasoning and writing.',
  }),
  text({
    slug: 'gemini-3.1-flash-lite',
    name: 'Gemini 3.1 Flash-Lite',
    provider: 'google',
    plan: STARTER,
    vision: true,
    context: 1048576,
    maxOutput: 65536,
    reasoningControl: true,
    min: 1,
    description: 'Lightest Gemini model: low latency, one-million-token context.',
  }),
  text({
    slug: 'gemini-3.5-flash',
    name: 'Gemini 3.5 Flash',
    provider: 'google',
    plan: STARTER,
    vision: true,
    context: 1048576,
    maxOutput: 65536,
    reasoning: true,
    reasoningControl: true,
    min: 1,
    description: 'Fast Gemini model with thinking and vision.',
  }),
  text({
    slug: 'gemini-3.1-pro',
    name: 'Gemini 3.1 Pro',
    provider: 'google',
    upstream: 'gemini-3.1-pro-preview',
    plan: BASIC,
    vision: true,
    context: 1048576,
    maxOutput: 65536,
    reasoning: true,
    reasoningControl: true,
    min: 3,
    description: 'Most capable Gemini model for complex reasoning over long inputs.',
  }),
  text({
    slug: 'grok-3-mini',
    name: 'Grok 3 mini',
    provider: 'xai',
    plan: STARTER,
    vision: false,
    context: 131072,
    maxOutput: 32768,
    reasoning: true,
    reasoningControl: true,
    min: 1,
    description: 'Lightweight Grok model that thinks before answering.',
  }),
  text({
    slug: 'grok-4.20',
    name: 'Grok 4.20',
    provider: 'xai',
    upstream: 'grok-4.20-non-reasoning',
    plan: BASIC,
    vision: false,
    context: 2000000,
    maxOutput: 32768,
    min: 3,
    description: 'General-purpose Grok model with broad knowledge.',
  }),
  text({
    slug: 'grok-4.3',
    name: 'Grok 4.3',
    provider: 'xai',
    plan: BASIC,
    vision: true,
    context: 1000000,
    maxOutput: 32768,
    reasoning: true,
    reasoningControl: true,
    min: 4,
    description: 'Frontier Grok reasoning model with vision.',
  }),
  text({
    slug: 'deepseek-v4-flash',
    name: 'DeepSeek V4.1 Flash',
    // DeepSeek renamed its flash model deepseek-flash (V4.1); the public slug stays so clients keep working.
    upstream: 'deepseek-flash',
    provider: 'deepseek',
    plan: STARTER,
    vision: false,
    context: 1000000,
    maxOutput: 384000,
    reasoningControl: true,
    min: 1,
    description: 'Fast, economical DeepSeek model; thinks step by step when asked.',
  }),
  text({
    slug: 'deepseek-v4-pro',
    name: 'DeepSeek V4 Pro',
    provider: 'deepseek',
    plan: BASIC,
    vision: false,
    context: 1000000,
    maxOutput: 384000,
    reasoning: true,
    reasoningControl: true,
    min: 2,
    description: 'Most capable DeepSeek model, reasoning before it answers.',
  }),
];

// ---------- image ----------

interface ImageSpec {
  slug: string;
  name: string;
  provider: ProviderName;
  upstream?: string;
  plan: PlanSlug;
  execution?: 'sync' | 'async';
  eta: number;
  sizes: SizeSet;
  negativePrompt?: boolean;
  hd?: boolean;
  styles?: ImageStyle[];
  imageInput?: ImageInput;
  description: string;
}

function image<S extends string, P extends ProviderName>(s: ImageSpec & { slug: S; provider: P }): Keyed<ImageModel, S, P> {
  const sizes = [...SIZE_SETS[s.sizes]];
  const qualities: ImageQuality[] = s.hd ? ['standard', 'hd'] : ['standard'];
  return {
    slug: s.slug,
    name: s.name,
    category: 'image',
    provider: s.provider,
    upstreamModel: s.upstream ?? s.slug,
    descriptionEn: s.description,
    minPlan: s.plan,
    supportsStreaming: false,
    execution: s.execution ?? 'sync',
    etaSeconds: s.eta,
    config: {
      sizes,
      default_size: sizes.includes('1024x1024') ? '1024x1024' : '1:1',
      formats: [...IMAGE_FORMATS],
      supports_negative_prompt: s.negativePrompt ?? false,
      qualities,
      styles: s.styles ?? [],
      image_input: s.imageInput ?? 'none',
    },
    pricing: imagePricing(vendorPrice(s.provider, s.upstream ?? s.slug), qualities, HOUSE_PRICES[s.slug]),
  };
}

const IMAGE_MODELS = [
  // GPT Image 2.6 has two tiers at one price: Flare is quick, Sunburst keeps detail across edits. `standard` is the
  // vendor's medium quality, `hd` its high (4x the output tokens).
  image({
    slug: 'gpt-image-2.6-flare',
    name: 'GPT Image 2.6 Flare',
    provider: 'openai',
    plan: BASIC,
    eta: 10,
    sizes: 'B',
    hd: true,
    description: 'Fast GPT Image model for everyday generation with precise text rendering.',
  }),
  image({
    slug: 'gpt-image-2.6-sunburst',
    name: 'GPT Image 2.6 Sunburst',
    provider: 'openai',
    plan: BASIC,
    eta: 30,
    sizes: 'B',
    hd: true,
    description: 'Highest-fidelity GPT Image model, for detailed compositions.',
  }),
  image({
    slug: 'gemini-3.1-flash-image',
    name: 'Gemini 3.1 Flash Image',
    provider: 'google',
    plan: STARTER,
    eta: 10,
    sizes: 'C',
    imageInput: 'optional',
    description: 'Fast image generation and editing: pass image_url to edit a picture.',
  }),
  // Imagen on the Gemini API is shut down; Google's replacement is its Gemini image family on generateContent.
  image({
    slug: 'gemini-3-pro-image',
    name: 'Gemini 3 Pro Image',
    provider: 'google',
    plan: BASIC,
    eta: 20,
    sizes: 'C',
    imageInput: 'optional',
    description: 'High-fidelity images with precise text rendering; pass image_url to edit.',
  }),
  image({
    slug: 'flux-dev',
    name: 'FLUX.1 [dev]',
    provider: 'bfl',
    plan: STARTER,
    eta: 10,
    sizes: 'D',
    description: 'Open-weight FLUX model: quality images at a low price.',
  }),
  image({
    slug: 'flux-pro-1.1',
    name: 'FLUX1.1 [pro]',
    provider: 'bfl',
    plan: BASIC,
    eta: 10,
    sizes: 'B',
    description: 'Fast, high-quality FLUX model with strong prompt adherence.',
  }),
  image({
    slug: 'flux-pro-1.1-ultra',
    name: 'FLUX1.1 [pro] Ultra',
    provider: 'bfl',
    plan: BASIC,
    execution: 'async',
    eta: 25,
    sizes: 'C',
    description: 'Up to 4-megapixel FLUX images in any of the listed aspect ratios.',
  }),
  image({
    slug: 'flux-kontext-pro',
    name: 'FLUX.1 Kontext [pro]',
    provider: 'bfl',
    plan: BASIC,
    eta: 15,
    sizes: 'C',
    imageInput: 'optional',
    description: 'Generate or edit images from text; pass image_url to edit.',
  }),
  image({
    slug: 'grok-imagine-image',
    name: 'Grok Imagine Image',
    provider: 'xai',
    upstream: 'grok-imagine-image-2.0',
    plan: BASIC,
    eta: 10,
    sizes: 'D',
    description: 'xAI image model; output is resized to the requested size.',
  }),
  image({
    slug: 'sdxl',
    name: 'Stable Diffusion XL',
    provider: 'replicate',
    upstream: 'stability-ai/sdxl',
    plan: BASIC,
    eta: 10,
    sizes: 'D',
    negativePrompt: true,
    description: 'Classic open diffusion model with negative prompts.',
  }),
  image({
    slug: 'sd-3.5-large',
    name: 'Stable Diffusion 3.5 Large',
    provider: 'replicate',
    upstream: 'stability-ai/stable-diffusion-3.5-large',
    plan: BASIC,
    eta: 15,
    sizes: 'C',
    negativePrompt: true,
    description: 'Large Stable Diffusion 3.5 model with negative prompts.',
  }),
];

// ---------- video ----------

interface VideoSpec {
  slug: string;
  name: string;
  provider: ProviderName;
  upstream: string;
  plan: PlanSlug;
  eta: number;
  sizes: string[];
  durations: number[];
  defaultDuration: number;
  negativePrompt?: boolean;
  imageInput: ImageInput;
  description: string;
}

function video<S extends string, P extends ProviderName>(s: VideoSpec & { slug: S; provider: P }): Keyed<VideoModel, S, P> {
  return {
    slug: s.slug,
    name: s.name,
    category: 'video',
    provider: s.provider,
    upstreamModel: s.upstream,
    descriptionEn: s.description,
    minPlan: s.plan,
    supportsStreaming: false,
    execution: 'async',
    etaSeconds: s.eta,
    config: {
      sizes: [...s.sizes],
      default_size: s.sizes[0] ?? null,
      durations: [...s.durations],
      default_duration: s.defaultDuration,
      supports_negative_prompt: s.negativePrompt ?? false,
      image_input: s.imageInput,
    },
    // One source for the durations: the config shows them, the pricing rule checks them.
    pricing: durationPricing(vendorPrice(s.provider, s.upstream), s.durations, s.defaultDuration, HOUSE_PRICES[s.slug]),
  };
}

const VIDEO_MODELS = [
  // Google's video models after Veo 3.1 Preview: Gemini Omni, on the Interactions API, with native audio.
  video({
    slug: 'gemini-omni-1.1-flash',
    name: 'Gemini Omni 1.1 Flash',
    provider: 'google',
    upstream: 'gemini-omni-1.1-flash',
    plan: STARTER,
    eta: 90,
    sizes: ['16:9', '9:16'],
    durations: [4, 6, 8, 10],
    defaultDuration: 8,
    imageInput: 'optional',
    description: 'Video clips with native audio from text or a first frame (image_url), landscape or portrait.',
  }),
  video({
    slug: 'gemini-omni-1.2-flash',
    name: 'Gemini Omni 1.2 Flash',
    provider: 'google',
    upstream: 'gemini-omni-1.2-flash',
    plan: BASIC,
    eta: 120,
    sizes: ['16:9', '9:16'],
    durations: [4, 6, 8, 10, 15],
    defaultDuration: 8,
    imageInput: 'optional',
    description: 'Longer Gemini Omni clips with speech and sound, up to 15 seconds.',
  }),
  video({
    slug: 'kling-v2.1',
    name: 'Kling 2.1',
    provider: 'replicate',
    upstream: 'kwaivgi/kling-v2.1',
    plan: BASIC,
    eta: 180,
    sizes: [],
    durations: [5, 10],
    defaultDuration: 5,
    negativePrompt: true,
    imageInput: 'required',
    description: 'Animates a start image (image_url) into a cinematic clip.',
  }),
  video({
    slug: 'hailuo-02',
    name: 'Hailuo 02',
    provider: 'replicate',
    upstream: 'minimax/hailuo-02',
    plan: BASIC,
    eta: 240,
    sizes: [],
    durations: [6, 10],
    defaultDuration: 6,
    imageInput: 'optional',
    description: 'Realistic motion and physics; optional first-frame image.',
  }),
  video({
    slug: 'wan-2.2',
    name: 'Wan 2.2 Fast',
    provider: 'replicate',
    upstream: 'wan-video/wan-2.2-t2v-fast',
    plan: BASIC,
    eta: 60,
    sizes: ['16:9', '9:16'],
    durations: [5],
    defaultDuration: 5,
    imageInput: 'none',
    description: 'Fast, inexpensive text-to-video clips.',
  }),
  video({
    slug: 'seedance-1-pro',
    name: 'Seedance 1 Pro',
    provider: 'replicate',
    upstream: 'bytedance/seedance-1-pro',
    plan: BASIC,
    eta: 120,
    sizes: ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'],
    durations: [5, 10],
    defaultDuration: 5,
    imageInput: 'optional',
    description: '1080p multi-shot video from text or a start image.',
  }),
];

// ---------- speech synthesis ----------

/** The Gemini API's prebuilt voices for its TTS models. */
const GEMINI_VOICES = [
  'Zephyr',
  'Puck',
  'Charon',
  'Kore',
  'Fenrir',
  'Leda',
  'Orus',
  'Aoede',
  'Callirrhoe',
  'Autonoe',
  'Enceladus',
  'Iapetus',
  'Umbriel',
  'Algieba',
  'Despina',
  'Erinome',
  'Algenib',
  'Rasalgethi',
  'Laomedeia',
  'Achernar',
  'Alnilam',
  'Schedar',
  'Gacrux',
  'Pulcherrima',
  'Achird',
  'Zubenelgenubi',
  'Vindemiatrix',
  'Sadachbia',
  'Sadaltager',
  'Sulafat',
] as const;
const ELEVENLABS_SPEED = { min: 0.7, max: 1.2 };
/** A premade ElevenLabs voice ("George") used when `params.voice_id` is omitted. */
const ELEVENLABS_DEFAULT_VOICE = 'JBFqnCBsd6RMkjVDRZzb';

function tts<S extends string, P extends ProviderName>(
  slug: S,
  name: string,
  provider: P,
  upstream: string,
  config: TtsModel['config'],
  min: number,
  description: string,
): Keyed<TtsModel, S, P> {
  return {
    slug,
    name,
    category: 'tts',
    provider,
    upstreamModel: upstream,
    descriptionEn: description,
    minPlan: BASIC,
    supportsStreaming: false,
    execution: 'sync',
    etaSeconds: 5,
    config,
    pricing: charactersPricing(vendorPrice(provider, upstream), min, HOUSE_PRICES[slug]),
  };
}

const TTS_MODELS = [
  // OpenAI's speech endpoint shuts down with tts-1 and gpt-4o-mini-tts; its successor is a realtime voice model that
  // does not read text verbatim. Gemini's TTS models read it in 30 prebuilt voices (PCM, delivered as WAV).
  tts(
    'gemini-3.8-flash-lite-tts',
    'Gemini 3.8 Flash-Lite TTS',
    'google',
    'gemini-3.8-flash-lite-tts',
    {
      voices: [...GEMINI_VOICES],
      default_voice: 'Kore',
      audio_formats: ['wav'],
      default_audio_format: 'wav',
      speed: null,
    },
    1,
    'Low-latency speech synthesis in over 100 languages with built-in voices.',
  ),
  tts(
    'gemini-3.8-flash-tts',
    'Gemini 3.8 Flash TTS',
    'google',
    'gemini-3.8-flash-tts',
    {
      voices: [...GEMINI_VOICES],
      default_voice: 'Kore',
      audio_formats: ['wav'],
      default_audio_format: 'wav',
      speed: null,
    },
    1,
    'Expressive speech synthesis in over 130 languages; steer the delivery in the text.',
  ),
  tts(
    'vendor-v2',
    'Multilingual v2',
    'elevenlabs',
    'eleven_multilingual_v2',
    {
      voices: null,
      default_voice: ELEVENLABS_DEFAULT_VOICE,
      audio_formats: ['mp3'],
      default_audio_format: 'mp3',
      speed: ELEVENLABS_SPEED,
    },
    2,
    'Lifelike multilingual speech; choose any voice with params.voice_id.',
  ),
  tts(
    'vendor-flash-v2-5',
    'Flash v2.5',
    'elevenlabs',
    'eleven_flash_v2_5',
    {
      voices: null,
      default_voice: ELEVENLABS_DEFAULT_VOICE,
      audio_formats: ['mp3'],
      default_audio_format: 'mp3',
      speed: ELEVENLABS_SPEED,
    },
    1,
    'Ultra-low-latency multilingual speech at half the price.',
  ),
  tts(
    'vendor-v3',
    'Eleven v3',
    'elevenlabs',
    'eleven_v3',
    {
      voices: null,
      default_voice: ELEVENLABS_DEFAULT_VOICE,
      audio_formats: ['mp3'],
      default_audio_format: 'mp3',
      speed: ELEVENLABS_SPEED,
    },
    2,
    'Most expressive speech model, with audio tags for emotion.',
  ),
];

// ---------- speech to text (2 tokens each, spec table: house-prices.ts) ----------

const STT_AUDIO_FORMATS = ['mp3', 'mp4', 'wav', 'm4a', 'ogg', 'flac', 'webm'];

function stt<S extends string, P extends ProviderName>(
  slug: S,
  name: string,
  provider: P,
  upstream: string,
  plan: PlanSlug,
  abilities: { diarization?: boolean; translation?: boolean },
  description: string,
): Keyed<SttModel, S, P> {
  return {
    slug,
    name,
    category: 'stt',
    provider,
    upstreamModel: upstream,
    descriptionEn: description,
    minPlan: plan,
    supportsStreaming: false,
    execution: 'sync',
    etaSeconds: 15,
    config: {
      supports_diarization: abilities.diarization ?? false,
      supports_translation: abilities.translation ?? false,
      language_detection: true,
      audio_formats: [...STT_AUDIO_FORMATS],
      max_file_mb: 25,
    },
    pricing: fixedPricing(vendorPrice(provider, upstream), 60, HOUSE_PRICES[slug]),
  };
}

const STT_MODELS = [
  // OpenAI's successor to whisper-1 and gpt-4o-transcribe (both shut down on 2027-02-26). OpenAI's transcription
  // models also translate speech into English (its /audio/translations endpoint).
  stt(
    'gpt-transcribe',
    'GPT Transcribe',
    'openai',
    'gpt-transcribe',
    STARTER,
    { translation: true },
    'Default transcription model: fast, 99 languages.',
  ),
  stt(
    'gpt-4o-transcribe',
    'GPT-4o Transcribe',
    'openai',
    'gpt-4o-transcribe',
    BASIC,
    { translation: true },
    'Highest-accuracy transcription.',
  ),
  stt(
    'vendor-scribe-v2',
    'Scribe v2',
    'elevenlabs',
    'scribe_v2',
    BASIC,
    { diarization: true },
    'Transcription with speaker diarization in 90+ languages.',
  ),
];

// ---------- music (fixed prices from the spec table, house-prices.ts; duration 15..120 s does not change them) ----------

const music = <S extends string, P extends ProviderName>(m: Omit<Keyed<MusicModel, S, P>, 'pricing'>): Keyed<MusicModel, S, P> => ({
  ...m,
  pricing: fixedPricing(vendorPrice(m.provider, m.upstreamModel), m.config.default_duration, HOUSE_PRICES[m.slug]),
});

const MUSIC_MODELS = [
  music({
    slug: 'musicgen',
    name: 'MusicGen',
    category: 'music',
    provider: 'replicate',
    upstreamModel: 'meta/musicgen',
    descriptionEn: 'Instrumental music from a text description.',
    minPlan: STARTER,
    supportsStreaming: false,
    execution: 'async',
    etaSeconds: 60,
    config: { min_duration: 15, max_duration: 120, default_duration: 30, audio_formats: ['mp3', 'wav'], default_audio_format: 'mp3' },
  }),
  music({
    slug: 'vendor-music',
    name: 'Eleven Music',
    category: 'music',
    provider: 'elevenlabs',
    upstreamModel: 'music_v1',
    descriptionEn: 'Studio-grade songs, with or without vocals, from a prompt.',
    minPlan: BASIC,
    supportsStreaming: false,
    execution: 'async',
    etaSeconds: 90,
    config: { min_duration: 15, max_duration: 120, default_duration: 30, audio_formats: ['mp3'], default_audio_format: 'mp3' },
  }),
];

// ---------- tools (all Starter tier, all synchronous; 1 token each, inpaint 3: house-prices.ts) ----------

/** A tool's particulars; the defaults are one input image (`params.image_url`), no prompt, an image result. */
interface ToolSpec {
  inputFields?: ToolRules['inputFields'];
  promptKind?: ToolRules['promptKind'];
  resultAsDocument?: boolean;
  result?: 'image' | 'text';
  scales?: number[];
  supportsMask?: boolean;
}

function tool<S extends string, P extends ProviderName>(
  slug: S,
  name: string,
  provider: P,
  upstream: string,
  spec: ToolSpec,
  description: string,
): Keyed<ToolModel, S, P> {
  const result = spec.result ?? 'image';
  const rules: ToolRules = {
    inputFields: spec.inputFields ?? ['params.image_url'],
    promptKind: spec.promptKind ?? 'none',
    resultAsDocument: spec.resultAsDocument ?? false,
  };
  return {
    slug,
    name,
    category: 'tool',
    provider,
    upstreamModel: upstream,
    descriptionEn: description,
    minPlan: STARTER,
    supportsStreaming: false,
    execution: 'sync',
    etaSeconds: result === 'text' ? 5 : 15,
    // The published config follows from the rules.
    config: {
      input: rules.inputFields.length === 2 ? 'image_pair' : 'image',
      requires_prompt: rules.promptKind !== 'none',
      result,
      formats: result === 'image' ? [...IMAGE_FORMATS] : [],
      scales: spec.scales ?? [],
      supports_mask: spec.supportsMask ?? false,
    },
    rules,
    pricing: fixedPricing(vendorPrice(provider, upstream), 0, HOUSE_PRICES[slug]),
  };
}

const TOOL_MODELS = [
  tool(
    'upscale',
    'Upscale',
    'replicate',
    'nightmareai/real-esrgan',
    { scales: [2, 4], resultAsDocument: true },
    'Upscale an image 2x or 4x (params.scale).',
  ),
  tool(
    'face-swap',
    'Face swap',
    'replicate',
    'codeplugtech/face-swap',
    { inputFields: ['params.source_image_url', 'params.target_image_url'] },
    'Put the face from params.source_image_url onto params.target_image_url.',
  ),
  tool(
    'remove-bg',
    'Remove background',
    'replicate',
    '851-labs/background-remover',
    { resultAsDocument: true },
    'Cut the subject out of an image onto a transparent background.',
  ),
  tool(
    'style-transfer',
    'Style transfer',
    'replicate',
    'fofr/style-transfer',
    { promptKind: 'style' },
    'Apply the style described in the prompt to an image.',
  ),
  tool('colorize', 'Colorize', 'replicate', 'piddnad/ddcolor', {}, 'Colorize a black-and-white photo.'),
  // The mask is optional: without params.mask_url the transparent area of the image is repainted.
  tool(
    'inpaint',
    'Inpaint',
    'bfl',
    'flux-pro-1.0-fill',
    { promptKind: 'edit', supportsMask: true },
    'Repaint the masked region of an image as the prompt describes.',
  ),
  tool('text-ocr', 'Text recognition', 'local', 'tesseract-eng', { result: 'text' }, 'Extract English text from an image (result_text).'),
];

const LIVE = [...TEXT_MODELS, ...IMAGE_MODELS, ...VIDEO_MODELS, ...TTS_MODELS, ...STT_MODELS, ...MUSIC_MODELS, ...TOOL_MODELS];

// ---------- lifecycle: the vendors' announced dates and our replacements (sources in test/fixtures/SOURCES.md) ----------

/** Vendor dates of catalog models; a model past `shutdownAt` is served by its `replacement`. */
const LIFECYCLES: { [S in (typeof LIVE)[number]['slug']]?: ModelLifecycle } = {
  // Google names no successor in the catalog; Gemini 3.5 Flash serves the same Starter users at one token too.
  'gemini-3.1-flash-lite': { shutdownAt: '2027-05-07', replacement: 'gemini-3.5-flash' },
  // OpenAI names gpt-transcribe as its successor.
  'gpt-4o-transcribe': { deprecatedAt: '2026-08-26', shutdownAt: '2027-02-26', replacement: 'gpt-transcribe' },
};

const CATALOG = LIVE.map((m) => {
  const lifecycle = LIFECYCLES[m.slug];
  return lifecycle ? { ...m, lifecycle } : m;
}) as typeof LIVE;

/**
 * Slugs of models the vendors shut down, replaced in the catalog: requests naming them are served by the
 * replacement (billed at its price, with a warning), so clients keep working. Never listed.
 */
export const RETIRED_ALIASES: readonly (RetiredAlias & { lifecycle: { replacement: ModelSlug } })[] = [
  retired('gpt-4o-mini', 'GPT-4o mini', 'text', 'openai', {
    deprecatedAt: '2026-10-14',
    shutdownAt: '2027-01-14',
    replacement: 'gpt-6-luna',
  }),
  retired('gpt-4.1-nano', 'GPT-4.1 nano', 'text', 'openai', { shutdownAt: '2026-10-23', replacement: 'gpt-5.6-luna' }),
  retired('gpt-4o', 'GPT-4o', 'text', 'openai', { deprecatedAt: '2026-10-14', shutdownAt: '2027-01-14', replacement: 'gpt-6-luna' }),
  retired('gpt-4.1', 'GPT-4.1', 'text', 'openai', { deprecatedAt: '2026-10-14', shutdownAt: '2027-01-14', replacement: 'gpt-6-luna' }),
  retired('o4-mini', 'o4-mini', 'text', 'openai', { shutdownAt: '2026-10-23', replacement: 'gpt-5.6-terra' }),
  retired('gpt-5', 'GPT-5', 'text', 'openai', { deprecatedAt: '2026-06-11', shutdownAt: '2026-12-11', replacement: 'gpt-6.1-sol' }),
  retired('gpt-5-mini', 'GPT-5 mini', 'text', 'openai', {
    deprecatedAt: '2026-06-11',
    shutdownAt: '2026-12-11',
    replacement: 'gpt-6.1-terra',
  }),
  retired('deepseek-chat', 'DeepSeek Chat', 'text', 'deepseek', {
    deprecatedAt: '2026-04-24',
    shutdownAt: '2026-07-24',
    replacement: 'deepseek-v4-flash',
  }),
  // DeepSeek names deepseek-v4-flash in thinking mode (its default effort, high) as the reasoner's successor.
  retired('deepseek-reasoner', 'DeepSeek Reasoner', 'text', 'deepseek', {
    deprecatedAt: '2026-04-24',
    shutdownAt: '2026-07-24',
    replacement: 'deepseek-v4-flash',
    reasoningEffort: 'high',
  }),
  retired('gpt-image-1-mini', 'GPT Image 1 mini', 'image', 'openai', {
    deprecatedAt: '2026-06-02',
    shutdownAt: '2026-12-01',
    replacement: 'gpt-image-2.6-flare',
  }),
  retired('gpt-image-1', 'GPT Image 1', 'image', 'openai', { shutdownAt: '2026-10-23', replacement: 'gpt-image-2.6-sunburst' }),
  retired('veo-3-fast', 'Veo 3.1 Fast', 'video', 'google', {
    shutdownAt: '2026-10-22',
    replacement: 'gemini-omni-1.1-flash',
    upstream: 'veo-3.1-fast-generate-preview',
  }),
  retired('veo-3', 'Veo 3.1', 'video', 'google', {
    shutdownAt: '2026-10-22',
    replacement: 'gemini-omni-1.1-flash',
    upstream: 'veo-3.1-generate-preview',
  }),
  retired('tts-1', 'OpenAI TTS-1', 'tts', 'openai', {
    deprecatedAt: '2026-10-01',
    shutdownAt: '2027-01-06',
    replacement: 'gemini-3.8-flash-lite-tts',
  }),
  retired('gpt-4o-mini-tts', 'GPT-4o mini TTS', 'tts', 'openai', {
    deprecatedAt: '2026-10-01',
    shutdownAt: '2027-01-06',
    replacement: 'gemini-3.8-flash-tts',
  }),
  // The default speech-to-text model until gpt-transcribe took its place (a Starter user keeps transcription).
  retired('whisper-1', 'Whisper', 'stt', 'openai', {
    deprecatedAt: '2026-08-26',
    shutdownAt: '2027-02-26',
    replacement: 'gpt-transcribe',
  }),
  retired('vendor-scribe', 'Scribe', 'stt', 'elevenlabs', {
    deprecatedAt: '2026-06-08',
    shutdownAt: '2026-07-09',
    replacement: 'vendor-scribe-v2',
    upstream: 'scribe_v1',
  }),
];

/** A retired slug; its vendor id is the slug unless named. */
function retired(
  slug: string,
  name: string,
  category: RetiredAlias['category'],
  provider: ProviderName,
  dates: { deprecatedAt?: string; shutdownAt: string; replacement: ModelSlug; upstream?: string; reasoningEffort?: ReasoningEffort },
): RetiredAlias & { lifecycle: { replacement: ModelSlug } } {
  const { upstream, reasoningEffort, ...lifecycle } = dates;
  return { slug, name, category, provider, upstreamModel: upstream ?? slug, lifecycle, ...(reasoningEffort ? { reasoningEffort } : {}) };
}
/** One catalog entry, with its slug and provider as literal types. */
export type CatalogModel = (typeof CATALOG)[number];
export type ModelSlug = CatalogModel['slug'];
/** The slugs a vendor serves: per-vendor model maps are keyed by these, so a missing entry fails the type check. */
export type SlugOf<P extends ProviderName> = Extract<CatalogModel, { provider: P }>['slug'];
export type ToolSlug = Extract<CatalogModel, { category: 'tool' }>['slug'];

export const MODELS: readonly ModelDefinition[] = CATALOG;

/** The model used by POST /api/v2/stt when the request names none. */
export const DEFAULT_STT_MODEL_SLUG = 'gpt-transcribe';
