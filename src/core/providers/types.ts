// The one contract every upstream adapter implements. The generation pipeline only sees these types.
import { DomainError } from '../errors';
import type { GenerationWarning } from '../warnings';

/**
 * Every vendor by name. `registry.ts` merges its one list of vendor definitions into this interface, so the names
 * come from the definitions themselves while the adapters (which import this file) need not be imported here.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging in registry.ts
export interface VendorRegistry {}
export type ProviderName = keyof VendorRegistry & string;

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
  /** How this vendor's non-2xx answers read (its definition's fault table). */
  faults: FaultTable;
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

/** The wire code of each vendor failure kind. */
export const PROVIDER_ERROR_CODES = {
  overloaded: 'model_overloaded',
  rate_limited: 'model_rate_limited',
  quota: 'provider_quota_exhausted',
  timeout: 'upstream_timeout',
  content_policy: 'content_policy_violation',
  bad_request: 'upstream_bad_request',
  auth: 'upstream_auth',
  upstream: 'upstream_error',
} as const satisfies Record<ProviderErrorKind, string>;

/** One non-2xx answer of a vendor, as its fault table sees it. */
export interface VendorFault {
  status: number;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: unknown;
  /** The human message the vendor gave (or `HTTP <status>`). */
  message: string;
}

/** A vendor's documented errors mapped onto our kinds (`<vendor>/faults.ts`; helpers in `faults.ts`). */
export type FaultTable = (fault: VendorFault) => ProviderErrorKind;

export class ProviderError extends DomainError {
  readonly code: (typeof PROVIDER_ERROR_CODES)[ProviderErrorKind];
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly provider: ProviderName,
    readonly upstreamStatus?: number,
    /** The wait the vendor asked for (`retry-after`), in ms. */
    readonly retryAfterMs?: number,
    /**
     * The vendor never started answering: it refused the request with an error status, or could not be reached
     * in time. Such a request did not run there, so another connection (or model) may take it.
     */
    readonly beforeFirstByte = false,
  ) {
    super(message, { provider, reason: kind });
    this.code = PROVIDER_ERROR_CODES[kind];
  }
  /** The same failure read as another kind (a vendor's wording says more than its status). */
  as(kind: ProviderErrorKind): ProviderError {
    return new ProviderError(kind, this.message, this.provider, this.upstreamStatus, this.retryAfterMs, this.beforeFirstByte);
  }
  get retryable(): boolean {
    return this.kind === 'overloaded' || this.kind === 'rate_limited' || this.kind === 'timeout' || this.kind === 'upstream';
  }
}

// ---------- text chat ----------

/**
 * A prompt-cache breakpoint the client set on a block (Anthropic's `cache_control`): the prompt up to and including
 * it may be cached, for `ttl` (default 5 minutes). Vendors that cache on their own ignore it.
 */
export interface CacheMark {
  ttl?: '5m' | '1h';
}

export type ChatContentPart =
  | { type: 'text'; text: string; cache?: CacheMark }
  | { type: 'image'; mime: string; data: Buffer; cache?: CacheMark }
  /** A document (a PDF) the model reads, as vendors with document input take it. */
  | { type: 'file'; mime: 'application/pdf'; data: Buffer; filename?: string; cache?: CacheMark }
  | ChatDocumentPart
  | ChatSearchResultPart;

/**
 * A document as Claude reads it (Anthropic's `document` block: titled, with context, citable). Vendors without
 * documents (ChatOption `documents`) never see one: the core hands them its text, or the PDF as a `file` part.
 */
export interface ChatDocumentPart {
  type: 'document';
  source:
    | { type: 'text'; text: string }
    | { type: 'pdf'; data: Buffer }
    /** A PDF the vendor fetches itself. */
    | { type: 'url'; url: string }
    /** Text blocks, each a citable chunk. */
    | { type: 'content'; texts: string[] };
  title?: string;
  context?: string;
  citations?: boolean;
  cache?: CacheMark;
}

/** A search result as Claude reads it (Anthropic's `search_result` block), for answers that cite their sources. */
export interface ChatSearchResultPart {
  type: 'search_result';
  source: string;
  title: string;
  texts: string[];
  citations?: boolean;
  cache?: CacheMark;
}

/** A function call the model asked for; `arguments` is the JSON text the model wrote. */
export interface ChatToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments; for a custom tool (`kind: 'custom'`), the free-form input the model wrote. */
  arguments: string;
  cache?: CacheMark;
  kind?: 'custom';
  /** The namespace of the tool it calls (OpenAI's namespace tools). */
  namespace?: string;
}

/**
 * Reasoning a model did before (or between) its answer's parts, as its vendor returned it. It is shown to clients
 * in each surface's shape and, when a later request replays the turn, sent back to the vendor that produced it
 * unchanged (its signatures and encrypted state restore the vendor's reasoning); other vendors never see it.
 */
export type ChatReasoning =
  /**
   * Readable reasoning: Claude's thinking block (with its `signature`), DeepSeek's and xAI's `reasoning_content`,
   * Gemini's thought summary (a `signature` when Gemini signed that part), OpenAI's reasoning summary.
   */
  | { type: 'text'; provider: ProviderName; text: string; signature?: string }
  /** Claude's redacted_thinking block: encrypted by Anthropic, replayed as it came. */
  | { type: 'redacted'; provider: ProviderName; data: string }
  /**
   * Opaque vendor state: an OpenAI reasoning item (`encrypted_content`, with the item's `id` and its summary as
   * `text`), or Gemini's thought signature of a function call (`callId`, the call it signs).
   */
  | { type: 'encrypted'; provider: ProviderName; data: string; id?: string; callId?: string; text?: string };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | ChatContentPart[];
  /** assistant: the reasoning of this turn, in the order the vendor gave it (it comes before the turn's content). */
  reasoning?: ChatReasoning[];
  /** assistant: the tool calls it made (its `content` may then be empty). */
  toolCalls?: ChatToolCall[];
  /** tool: the call this message answers. */
  toolCallId?: string;
}

/** A function the model may call; `parameters` is a JSON Schema object. */
export interface ChatTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean;
  cache?: CacheMark;
  /**
   * `custom`: the model calls it with free-form text instead of JSON arguments (OpenAI's custom tools), constrained by
   * `format` (a grammar) where the vendor reads one. Vendors without them are offered a function of one `input` string.
   */
  kind?: 'custom';
  format?: Record<string, unknown>;
  /** The namespace it was offered in (OpenAI's namespace tools); elsewhere it is offered as `<namespace>__<name>`. */
  namespace?: { name: string; description?: string };
}

/** Tools a vendor runs on its side, by the names clients send them (OpenAI's Responses API, Anthropic's server tools). */
export type HostedTool = 'web_search' | 'web_fetch' | 'code_execution' | 'file_search' | 'image_generation';

/** A tool the vendor runs on its side (web search), with its settings as the client sent them. */
export interface ChatHostedTool {
  type: HostedTool;
  settings: Record<string, unknown>;
}

/** A hosted tool's run, as the vendor reports it (OpenAI's `web_search_call`, Anthropic's `server_tool_use`). */
export interface ChatHostedCall {
  id: string;
  type: HostedTool;
  status: 'completed' | 'failed';
  /** What it did: for a web search, `{type: 'search', query}`. */
  action: Record<string, unknown>;
}

export type ChatToolChoice = 'auto' | 'none' | 'required' | { name: string };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string; strict?: boolean };

/**
 * How hard the model should reason, on the widest scale the surfaces use (chat `reasoning_effort`, Responses
 * `reasoning.effort`, Messages `output_config.effort`); each adapter maps it to its vendor's control and the nearest
 * value the model takes. `none` asks for no reasoning where the model can skip it.
 */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/**
 * Extended thinking as the Messages API asks for it, beside (or instead of) an effort; `display` (`summarized` or
 * `omitted`) is whether Claude shows the thinking text, passed on as the client set it.
 */
export type ThinkingRequest =
  /** `thinking: {type: "enabled", budget_tokens}`: reason with at most this many tokens. */
  | { type: 'budget'; budgetTokens: number; display?: string }
  /** `thinking: {type: "adaptive"}`: the model decides how much, steered by the effort. */
  | { type: 'adaptive'; display?: string }
  /** `thinking: {type: "disabled"}`. */
  | { type: 'disabled' };

/** The optional request parameters a chat adapter may or may not honour (see ChatCapability.supports). */
export type ChatOption =
  | 'temperature'
  | 'tools'
  | 'parallel_tool_calls'
  | 'response_format.json_object'
  | 'response_format.json_schema'
  | 'stop'
  | 'top_p'
  | 'seed'
  | 'presence_penalty'
  | 'frequency_penalty'
  | 'user'
  | 'reasoning_effort'
  | 'metadata'
  | 'service_tier'
  | 'store'
  | 'prompt_cache_key'
  /** Prompt-cache breakpoints on blocks (`cache_control`): vendors that cache on their own have no use for them. */
  | 'cache_control'
  | 'safety_identifier'
  /** `file` content parts (PDF documents). */
  | 'pdf'
  /** More than one choice (`n` > 1). */
  | 'n'
  /** Token log probabilities (`logprobs`, `top_logprobs`). */
  | 'logprobs'
  /** Top-k sampling (Anthropic's and Gemini's `top_k`). */
  | 'top_k'
  /** How long the answer should be (OpenAI's `verbosity`, `text.verbosity` on Responses). */
  | 'verbosity'
  /** `document` and `search_result` parts as such (else the core gives the vendor their text). */
  | 'documents'
  /** Custom (free-form) and namespace tools as such (else the core offers them as plain functions). */
  | 'tool_shapes'
  /** The hosted web search. */
  | 'web_search';

/** What an adapter may look at besides the option itself: some options exclude others on some vendors. */
export interface ChatRequestTraits {
  /** Every option the request sets. */
  options: ReadonlySet<ChatOption>;
  toolChoice?: ChatToolChoice;
  /** An earlier assistant turn called tools (its results come back in this request). */
  toolTurns: boolean;
  /** Some earlier assistant turn called tools without keeping this vendor's reasoning (the client dropped it). */
  unreasonedToolTurns: boolean;
  /** The conversation ends in tool results whose calling turn kept none of this vendor's reasoning. */
  unreasonedToolLoop: boolean;
  maxTokens: number;
  temperature?: number;
  topP?: number;
}

/** The optional parameters of a chat request, named as the core knows them (one type from the door to the vendor). */
export interface ChatOptions {
  tools?: ChatTool[];
  toolChoice?: ChatToolChoice;
  parallelToolCalls?: boolean;
  responseFormat?: ChatResponseFormat;
  stop?: string[];
  topP?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** The caller's end-user id, for the vendor's abuse monitoring. */
  user?: string;
  reasoningEffort?: ReasoningEffort;
  /** Messages' `thinking`; the option `reasoning_effort` covers it (set when either is). */
  thinking?: ThinkingRequest;
  /**
   * The client keeps the answer's reasoning state to replay it (Responses `include: ["reasoning.encrypted_content"]`,
   * Messages with thinking on): a vendor that returns that state only from one of its APIs is called there.
   */
  keepReasoning?: boolean;
  /** Labels: passed on only where the vendor takes them (the core drops the ones an adapter does not support). */
  metadata?: Record<string, string>;
  serviceTier?: string;
  store?: boolean;
  promptCacheKey?: string;
  safetyIdentifier?: string;
  /** How many answers to write (`n`); each is billed as the vendor counts it. */
  choices?: number;
  /** Token log probabilities of the answer, with this many alternatives per token (0: the chosen token only). */
  logprobs?: { top: number };
  topK?: number;
  verbosity?: 'low' | 'medium' | 'high';
  /** Tools the vendor runs itself (the core drops those the model's vendor does not host). */
  hostedTools?: ChatHostedTool[];
}

export interface ChatRequest extends ChatOptions {
  upstreamModel: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens: number;
}

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls';

export interface ChatUsage {
  /** Every input token, cached or not. */
  promptTokens: number;
  /** Every output token, reasoning included. */
  completionTokens: number;
  /** Of `promptTokens`, those read from the vendor's prompt cache (billed at its cached-input rate). */
  cachedTokens?: number;
  /** Of `promptTokens`, those written to the prompt cache (Anthropic bills them above the input rate). */
  cacheWriteTokens?: number;
  /** Of `completionTokens`, those spent reasoning. */
  reasoningTokens?: number;
  /** Hosted tool runs (web searches), each billed at the vendor's price per use. */
  toolUses?: Partial<Record<HostedTool, number>>;
}

/** One token of an answer with its log probability and, when asked, the likeliest alternatives (Chat Completions' shape). */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: { token: string; logprob: number; bytes: number[] | null }[];
}

/** One more answer to the same request (`n` > 1): choice 1, 2... */
export interface ChatChoice {
  text: string;
  finishReason: FinishReason;
  toolCalls?: ChatToolCall[];
  logprobs?: TokenLogprob[];
  /** The reasoning behind this answer, as the vendor returned it. */
  reasoning?: ChatReasoning[];
}

export interface ChatResult {
  text: string;
  usage: ChatUsage;
  finishReason: FinishReason;
  toolCalls?: ChatToolCall[];
  /** The reasoning the vendor returned, in its order (it precedes the text and tool calls). */
  reasoning?: ChatReasoning[];
  /** The answer's tokens with their log probabilities, when asked for. */
  logprobs?: TokenLogprob[];
  /** The other answers, when more than one was asked for (`usage` counts them all). */
  moreChoices?: ChatChoice[];
  /** Hosted tools the vendor ran for this answer, in order (they precede the text). */
  hostedCalls?: ChatHostedCall[];
}

/**
 * A fragment of a tool call: the first fragment of call `index` carries its `id` and `name`, later ones only
 * more `arguments` text (as chat-completions streams deliver it).
 */
export interface ChatToolCallDelta {
  type: 'tool_call';
  /** The answer it belongs to when several were asked for (absent: the first). */
  choice?: number;
  index: number;
  id?: string;
  name?: string;
  /** With the first fragment: a custom tool's call (its fragments are free-form input), and the tool's namespace. */
  kind?: 'custom';
  namespace?: string;
  arguments: string;
}

/** `choice` names the answer an event belongs to when several were asked for (absent: the first). */
export type ChatStreamEvent =
  | { type: 'delta'; text: string; choice?: number }
  /** Reasoning text as it streams: a piece of the reasoning block in progress. */
  | { type: 'reasoning_delta'; text: string }
  /**
   * A reasoning block is complete: the whole of it (the text its deltas streamed, its signature, or opaque state that
   * streamed no text). The next `reasoning_delta` starts a new block.
   */
  | { type: 'reasoning'; reasoning: ChatReasoning }
  | ChatToolCallDelta
  | { type: 'logprobs'; content: TokenLogprob[]; choice?: number }
  /** A hosted tool ran (a web search): reported once it is done. */
  | { type: 'hosted_call'; call: ChatHostedCall }
  | { type: 'usage'; usage: ChatUsage }
  | { type: 'finish'; finishReason: FinishReason; choice?: number };

export interface ChatCapability {
  chat(req: ChatRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<ChatResult>;
  /** Yields deltas as the vendor sends them; aborting `signal` must abort the upstream request. */
  chatStream(req: ChatRequest, conn: ProviderConnection, signal?: AbortSignal): AsyncIterable<ChatStreamEvent>;
  /**
   * Whether this vendor model honours an optional parameter (given the rest of the request, when known). The core
   * refuses a request that sets one it does not, except labels and hints (`seed`, `user`, `metadata`,
   * `reasoning_effort`, `parallel_tool_calls`...): those it drops before the call and names as ignored.
   */
  supports(option: ChatOption, upstreamModel: string, traits?: ChatRequestTraits): boolean;
}

// ---------- media (image, video, speech, transcription, music, tools) ----------

export type MediaCategory = 'image' | 'video' | 'tts' | 'stt' | 'music' | 'tool';

export interface InputFile {
  data: Buffer;
  mime: string;
  filename?: string;
}

interface MediaRequestBase {
  /** Catalog slug (adapters serving several models switch on it). */
  slug: string;
  upstreamModel: string;
  prompt?: string;
}

/** Input images arrive already fetched through the SSRF-safe fetch and checked. */
export interface ImageRequest extends MediaRequestBase {
  category: 'image';
  negativePrompt?: string;
  /** `1024x1024` style or an aspect ratio such as `16:9`, as the catalog's size set allows. */
  size?: string;
  quality?: 'standard' | 'hd';
  style?: 'vivid' | 'natural';
  seed?: number;
  /** An image to edit, for models that take one. */
  images?: InputFile[];
}

export interface VideoRequest extends MediaRequestBase {
  category: 'video';
  negativePrompt?: string;
  /** An aspect ratio such as `16:9`. */
  size?: string;
  seed?: number;
  durationSeconds?: number;
  /** A first frame, for models that take one. */
  images?: InputFile[];
}

export interface TtsRequest extends MediaRequestBase {
  category: 'tts';
  voiceId?: string;
  speed?: number;
  /** Requested audio format (`mp3`, `wav`, `opus`...). */
  audioFormat?: string;
}

export interface SttRequest extends MediaRequestBase {
  category: 'stt';
  /** `prompt` here is the words and style to expect, where the vendor takes one. */
  audio?: InputFile;
  language?: string;
  diarize?: boolean;
  /** Translate the speech into English text (models whose config has supports_translation). */
  translate?: boolean;
}

export interface MusicRequest extends MediaRequestBase {
  category: 'music';
  seed?: number;
  durationSeconds?: number;
  audioFormat?: string;
}

export interface ToolRequest extends MediaRequestBase {
  category: 'tool';
  /** [image], or [source, target] for a pair (face-swap). */
  images?: InputFile[];
  mask?: InputFile;
  /** Upscale factor, 2 or 4. */
  scale?: number;
}

/** One request type per category: an adapter sees only the options its category has. */
export type MediaRequest = ImageRequest | VideoRequest | TtsRequest | SttRequest | MusicRequest | ToolRequest;
export type MediaRequestOf<C extends MediaCategory> = Extract<MediaRequest, { category: C }>;

/** A stretch of a transcript with its times (seconds from the start); `speaker` numbers speakers from 1. */
export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  speaker?: number;
}

/** One word of a transcript with its times, where the vendor gives them. */
export interface TranscriptWord {
  word: string;
  start: number;
  end: number;
}

export interface MediaOutput {
  /** Result files as bytes (the adapter downloads vendor-hosted URLs itself). */
  files: InputFile[];
  /** Text result (transcription, OCR); diarized text uses `[Speaker N]: ` line prefixes. */
  text?: string;
  /** A transcript's timed segments, where the vendor gives times. */
  segments?: TranscriptSegment[];
  words?: TranscriptWord[];
  /** The spoken language the vendor detected or was told (ISO 639-1 where the vendor says it so). */
  language?: string;
  seed?: number;
  durationSeconds?: number;
  /** Units actually consumed when the vendor reports them (characters, seconds). */
  usage?: Record<string, number>;
  /** Options of the request the vendor model does not take and that were left out, in the API's field names. */
  warnings?: GenerationWarning[];
}

export type MediaStart = { state: 'completed'; output: MediaOutput } | { state: 'pending'; upstreamJobId: string; etaSeconds: number };

export type MediaPoll = { state: 'completed'; output: MediaOutput } | { state: 'pending' } | { state: 'failed'; error: ProviderError };

export interface MediaCapability {
  /** Runs or submits the job. Synchronous vendors answer `completed`; queue-based ones answer `pending`. */
  start(req: MediaRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaStart>;
  /** Polls a job that `start` left pending. */
  poll(upstreamJobId: string, req: MediaRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<MediaPoll>;
}
