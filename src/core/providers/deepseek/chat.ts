import { ChatCompletionsProfile, createChatCompletionsChat } from '../openai-compatible';
import { ChatOption, ProviderError, ReasoningEffort } from '../types';

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

// DeepSeek documents no seed, no `user`, no parallel_tool_calls switch and no json_schema output. deepseek-chat has
// function calling, JSON output and the sampling controls; the reasoner has none of them (it ignores the sampling ones).
const CHAT_OPTIONS = new Set<ChatOption>([
  'tools',
  'response_format.json_object',
  'stop',
  'top_p',
  'presence_penalty',
  'frequency_penalty',
  'reasoning_effort',
]);
const REASONER_OPTIONS = new Set<ChatOption>(['stop', 'reasoning_effort']);

/**
 * DeepSeek's thinking mode: `thinking: {type: "enabled"}` turns it on (deepseek-reasoner has it on already) and
 * `reasoning_effort` takes `low` or `high` (DeepSeek maps minimal to low and medium to high itself; sent mapped).
 */
function reasoningFields(effort: ReasoningEffort): Record<string, unknown> {
  return { thinking: { type: 'enabled' }, reasoning_effort: effort === 'minimal' || effort === 'low' ? 'low' : 'high' };
}

export const deepSeekChatProfile: ChatCompletionsProfile = {
  provider: 'deepseek',
  path: '/chat/completions',
  tokenLimitField: () => 'max_tokens',
  maxOutputTokens: (model) => OUTPUT_CEILINGS[model],
  // The reasoner accepts temperature for compatibility but ignores it; leave it out.
  acceptsTemperature: (model) => model !== REASONER,
  supports: (option, model) => (model === REASONER ? REASONER_OPTIONS : CHAT_OPTIONS).has(option),
  reasoningFields,
  acceptsImages: false,
  reasoningTokensOutsideCompletion: false,
  refineError: refineDeepSeekError,
};

/** `reasoning_content` (the reasoner's chain of thought) is dropped by the shared client. */
export const deepSeekChat = createChatCompletionsChat(deepSeekChatProfile);
