import { ChatCompletionsProfile, createChatCompletionsChat } from '../openai-compatible';
import { ChatOption, ProviderError } from '../types';

/**
 * xAI documents HTTP 400 (not 401) for an incorrect API key, worded "Incorrect API key provided";
 * that is a credentials failure, not a malformed request.
 */
export function refineXaiError(err: ProviderError): ProviderError {
  if (err.kind === 'bad_request' && /api key/i.test(err.message)) {
    return new ProviderError('auth', err.message, err.provider, err.upstreamStatus);
  }
  return err;
}

/** xAI's reasoning models (grok-3-mini, grok-4) refuse presence/frequency penalties and stop sequences. */
const REASONING_REFUSES = new Set<ChatOption>(['presence_penalty', 'frequency_penalty', 'stop']);
const isReasoning = (model: string) => /^grok-(3-mini|4)/.test(model) && !model.includes('non-reasoning');

export const xaiChatProfile: ChatCompletionsProfile = {
  provider: 'xai',
  path: '/chat/completions',
  tokenLimitField: () => 'max_tokens',
  acceptsTemperature: () => true,
  supports: (option, model) => !(isReasoning(model) && REASONING_REFUSES.has(option)),
  acceptsImages: true,
  // xAI's usage keeps reasoning_tokens beside completion_tokens (total = prompt + completion + reasoning).
  reasoningTokensOutsideCompletion: true,
  refineError: refineXaiError,
};

export const xaiChat = createChatCompletionsChat(xaiChatProfile);
