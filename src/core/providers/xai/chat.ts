import { ChatCompletionsProfile, createChatCompletionsChat } from '../openai-compatible';
import { ProviderError } from '../types';

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

export const xaiChatProfile: ChatCompletionsProfile = {
  provider: 'xai',
  path: '/chat/completions',
  tokenLimitField: () => 'max_tokens',
  acceptsTemperature: () => true,
  acceptsImages: true,
  // xAI's usage keeps reasoning_tokens beside completion_tokens (total = prompt + completion + reasoning).
  reasoningTokensOutsideCompletion: true,
  refineError: refineXaiError,
};

export const xaiChat = createChatCompletionsChat(xaiChatProfile);
