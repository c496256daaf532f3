import { ChatCompletionsProfile, createChatCompletionsChat } from '../openai-compatible';
import type { ChatOption, ReasoningEffort } from '../types';

/**
 * o-series and GPT-5 models are reasoning models: they refuse `max_tokens` (it must be
 * `max_completion_tokens`, which also covers their hidden reasoning tokens) and any temperature but
 * the default. Older chat models keep `max_tokens`, which OpenAI-compatible self-hosted servers
 * behind OPENAI_BASE_URL also understand.
 */
export function isOpenAiReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5)/.test(model);
}

// Documented output ceilings of the catalog's OpenAI models (longest prefix wins).
const OUTPUT_CEILINGS: Array<[prefix: string, tokens: number]> = [
  ['gpt-5', 128000],
  ['o4-mini', 100000],
  ['gpt-4.1', 32768],
  ['gpt-4o', 16384],
];

// Reasoning models refuse sampling controls: only the default temperature, no top_p, penalties or stop.
const REASONING_REFUSES = new Set<ChatOption>(['top_p', 'presence_penalty', 'frequency_penalty', 'stop']);

/** GPT-5 takes `minimal`; the o-series starts at `low`. */
function reasoningEffort(effort: ReasoningEffort, model: string): ReasoningEffort {
  return effort === 'minimal' && !model.startsWith('gpt-5') ? 'low' : effort;
}

function supports(option: ChatOption, model: string): boolean {
  if (option === 'reasoning_effort') return isOpenAiReasoningModel(model);
  return !(isOpenAiReasoningModel(model) && REASONING_REFUSES.has(option));
}

export const openAiChatProfile: ChatCompletionsProfile = {
  provider: 'openai',
  path: '/chat/completions',
  tokenLimitField: (model) => (isOpenAiReasoningModel(model) ? 'max_completion_tokens' : 'max_tokens'),
  maxOutputTokens: (model) => OUTPUT_CEILINGS.find(([prefix]) => model.startsWith(prefix))?.[1],
  acceptsTemperature: (model) => !isOpenAiReasoningModel(model),
  supports,
  reasoningFields: (effort, model) => ({ reasoning_effort: reasoningEffort(effort, model) }),
  acceptsImages: true,
  reasoningTokensOutsideCompletion: false,
};

export const openAiChat = createChatCompletionsChat(openAiChatProfile);
