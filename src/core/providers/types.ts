// The one contract every upstream adapter implements. The generation pipeline only sees these types.
import { DomainError } from '../errors';

export const PROVIDER_NAMES = [
  'openai',
  'anthropic',
  'google',
  'xai',
  'deepseek',
  'bfl',
  'replicate',
  'elevenlabs',
  'local',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** How an adapter reaches its vendor: resolved from `<P>_API_KEY` / `<P>_BASE_URL` or the sandbox. */
export interface ProviderConnection {
  apiKey: string;
  /** Vendor base URL without a trailing slash, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** True when `baseUrl` points at the built-in sandbox upstream. */
  sandbox: boolean;
  fetch: typeof fetch;
  /** Upper bound for one upstream HTTP call, in milliseconds. */
  timeoutMs: number;
}

export type ProviderErrorKind =
  | 'overloaded' // 429 / 503 / 529 and the like: try later or another model
  | 'timeout'
  | 'content_policy' // the vendor refused the prompt or the output
  | 'bad_request' // our request was rejected as invalid (a bug or an unsupported option)
  | 'auth' // credentials missing or refused
  | 'upstream'; // anything else the vendor did wrong (5xx, malformed body)

/** The wire code of each vendor failure kind. */
export const PROVIDER_ERROR_CODES = {
  overloaded: 'model_overloaded',
  timeout: 'upstream_timeout',
  content_policy: 'content_policy_violation',
  bad_request: 'upstream_bad_request',
  auth: 'upstream_auth',
  upstream: 'upstream_upstream',
} as const satisfies Record<ProviderErrorKind, string>;

export class ProviderError extends DomainError {
  readonly code: (typeof PROVIDER_ERROR_CODES)[ProviderErrorKind];
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly provider: ProviderName,
    readonly upstreamStatus?: number,
  ) {
    super(message, { provider, reason: kind });
    this.code = PROVIDER_ERROR_CODES[kind];
  }
  get retryable(): boolean {
    return this.kind === 'overloaded' || this.kind === 'timeout' || this.kind === 'upstream';
  }
}

// ---------- text chat ----------

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image'; mime: string; data: Buffer };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ChatContentPart[];
}

export interface ChatRequest {
  upstreamModel: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens: number;
}

export type FinishReason = 'stop' | 'length' | 'content_filter';

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatResult {
  text: string;
  usage: ChatUsage;
  finishReason: FinishReason;
}

export type ChatStreamEvent =
  | { type: 'delta'; text: string }
  | { type: 'usage'; usage: ChatUsage }
  | { type: 'finish'; finishReason: FinishReason };

export interface ChatCapability {
  chat(req: ChatRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<ChatResult>;
  /** Yields deltas as the vendor sends them; aborting `signal` must abort the upstream HTTP request. */
  chatStream(req: ChatRequest, conn: ProviderConnection, signal?: AbortSignal): AsyncIterable<ChatStreamEvent>;
}

// ---------- media (image, video, speech, transcription, music, tools) ----------

export type MediaCategory = 'image' | 'video' | 'tts' | 'stt' | 'music' | 'tool';

export interface InputFile {
  data: Buffer;
  mime: string;
  filename?: string;
}

export interface MediaRequest {
  category: MediaCategory;
  /** Catalog slug (adapters serving several tools switch on it). */
  slug: string;
  upstreamModel: string;
  prompt?: string;
  negativePrompt?: string;
  /** `1024x1024` style or an aspect ratio such as `16:9`, as the catalog's size set allows. */
  size?: string;
  quality?: 'standard' | 'hd';
  style?: 'vivid' | 'natural';
  seed?: number;
  /** Input images already fetched through the SSRF-safe fetch: [image] or [source, target] for face-swap. */
  images?: InputFile[];
  mask?: InputFile;
  audio?: InputFile;
  language?: string;
  diarize?: boolean;
  durationSeconds?: number;
  voiceId?: string;
  speed?: number;
  /** Requested audio format for speech (`mp3`, `wav`, `opus`...). */
  audioFormat?: string;
  /** Upscale factor, 2 or 4. */
  scale?: number;
}

export interface MediaOutput {
  /** Result files as bytes (the adapter downloads vendor-hosted URLs itself). */
  files: InputFile[];
  /** Text result (transcription, OCR); diarized text uses `[Speaker N]: ` line prefixes. */
  text?: string;
  seed?: number;
  durationSeconds?: number;
  /** Units actually consumed when the vendor reports them (characters, seconds). */
  usage?: Record<string, number>;
}

export type MediaStart =
  | { state: 'completed'; output: MediaOutput }
  | { state: 'pending'; upstreamJobId: string; etaSeconds: number };

export type MediaPoll =
  | { state: 'completed'; output: MediaOutput }
  | { state: 'pending' }
  | { state: 'failed'; error: ProviderError };

export interface MediaCapability {
  /** Runs or submits the job. Synchronous vendors answer `completed`; queue-based ones answer `pending`. */
  start(req: MediaRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaStart>;
  /** Polls a job that `start` left pending. */
  poll(upstreamJobId: string, req: MediaRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaPoll>;
}

export interface ProviderAdapter {
  name: ProviderName;
  /** Official base URL used when `<P>_BASE_URL` is not set. */
  defaultBaseUrl: string;
  chat?: ChatCapability;
  media?: MediaCapability;
}
