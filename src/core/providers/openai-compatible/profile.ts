import type { ChatOption, ChatRequest, ChatRequestTraits, ProviderError, ProviderName, ReasoningEffort } from '../types';

/**
 * What differs between vendors that speak the Chat Completions protocol (OpenAI, xAI, DeepSeek).
 * One client, one profile per vendor.
 */
export interface ChatCompletionsProfile {
  provider: ProviderName;
  /** Appended to `conn.baseUrl`, e.g. `/chat/completions`. */
  path: string;
  /** The request field that carries the output limit for this model. */
  tokenLimitField(model: string): 'max_tokens' | 'max_completion_tokens';
  /** Documented output ceiling, so a large `maxTokens` is clamped instead of refused with a 400. */
  maxOutputTokens?(model: string): number | undefined;
  /** False for models that reject (or ignore) a non-default `temperature`. */
  acceptsTemperature(model: string): boolean;
  /** Which optional request parameters this model honours (temperature: see acceptsTemperature). */
  supports(option: ChatOption, model: string, traits?: ChatRequestTraits): boolean;
  /** The body fields that carry `reasoning_effort` for this model (only asked where `supports` said yes). */
  reasoningFields?(effort: ReasoningEffort, model: string): Record<string, unknown>;
  /** Fields this model needs with this request whatever the caller asked (e.g. reasoning off for tools). */
  requiredFields?(model: string, req: ChatRequest): Record<string, unknown>;
  /** Whether image parts may be sent (as `image_url` data URIs). */
  acceptsImages: boolean;
  /** xAI reports `reasoning_tokens` outside `completion_tokens`, though they are billed as output. */
  reasoningTokensOutsideCompletion: boolean;
  /** DeepSeek's thinking mode wants an assistant turn's `reasoning_content` back on it (tool loops refuse without). */
  replaysReasoningContent?: boolean;
  /** Vendor quirks in error statuses, e.g. xAI answers a wrong key with HTTP 400. */
  refineError?(err: ProviderError): ProviderError;
}
