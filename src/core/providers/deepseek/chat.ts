import { ChatCompletionsProfile, createChatCompletionsChat } from '../openai-compatible';
import { ProviderError } from '../types';

const REASONER = 'deepseek-reasoner';

/**
 * 402 "Insufficient Balance" means the operator's account is out of funds: a credentials-level
 * refusal that retrying will not fix.
 */
export function refineDeepSeekError(err: ProviderError): ProviderError {
  if (err.upstreamStatus === 402) return new ProviderError('auth', err.message, err.provider, err.upstreamStatus);
  return err;
}

// DeepSeek's models page: deepseek-chat writes at most 8K tokens, deepseek-reasoner 64K.
const OUTPUT_CEILINGS: Record<string, number> = { 'deepseek-chat': 8192, [REASONER]: 65536 };

export const deepSeekChatProfile: ChatCompletionsProfile = {
  provider: 'deepseek',
  path: '/chat/completions',
  tokenLimitField: () => 'max_tokens',
  maxOutputTokens: (model) => OUTPUT_CEILINGS[model],
  // The reasoner accepts temperature for compatibility but ignores it; leave it out.
  acceptsTemperature: (model) => model !== REASONER,
  acceptsImages: false,
  reasoningTokensOutsideCompletion: false,
  refineError: refineDeepSeekError,
};

/** `reasoning_content` (the reasoner's chain of thought) is dropped by the shared client. */
export const deepSeekChat = createChatCompletionsChat(deepSeekChatProfile);
