// The one contract every upstream adapter implements. The generation pipeline only sees these types.

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
  /**
   * When the work this call belongs to must be over (epoch ms): transient failures are retried only while a
   * retry can still finish before it. Without it, one `timeoutMs` from the first attempt.
   */
  deadlineAt?: number;
  /** Attempts per call for transient failures (overloaded, rate-limited); default 3. */
  maxAttempts?: number;
  /** Largest vendor body read into memory (JSON answers, downloads); default 256 MB. */
  maxResponseBytes?: number;
}

export type ProviderErrorKind =
  | 'overloaded' // 503 / 529 and the like: the vendor is short of capacity; retry with jittered backoff
  | 'rate_limited' // 429 for our own rate: retry after `retry-after`
  | 'quota' // credits or billing exhausted (OpenAI insufficient_quota, 402s): no retry, the provider is paused
  | 'timeout'
  | 'content_policy' // the vendor refused the prompt or the output
  | 'bad_request' // our request was rejected as invalid (a bug or an unsupported option)
  | 'auth' // credentials missing or refused
  | 'upstream'; // anything else the vendor did wrong (5xx, malformed body)

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly provider: ProviderName,
    readonly upstreamStatus?: number,
    /** The wait the vendor asked for (`retry-after`), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
  get retryable(): boolean {
    return this.kind === 'overloaded' || this.kind === 'rate_limited' || this.kind === 'timeout' || this.kind === 'upstream';
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
