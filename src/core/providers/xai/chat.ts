import { ChatCompletionsProfile, createChatCompletionsChat } from '../openai-compatible';
import { ChatOption, ProviderError, ReasoningEffort } from '../types';

/**
 * xAI documents HTTP 400 (not 401) for an incorrect API key, worded "Incorrect API key provided";
 * that is a credentials failure, not a malformed request.
 */
export function refineXaiError(err: ProviderError): ProviderError {
  if (err.kind === 'bad_request' && /api key/i.test(err.message)) {
    return err.as('auth');
  }
  return err;
}

/** xAI's reasoning models (grok-3-mini, grok-4) refuse presence/frequency penalties and stop sequences. */
const REASONING_REFUSES = new Set<ChatOption>(['presence_penalty', 'frequency_penalty', 'stop']);
const isReasoning = (model: string) => /^grok-(3-mini|4)/.test(model) && !model.includes('non-reasoning');

// xAI's chat completions take `user` and `seed`, but none of OpenAI's other labels, and no documents; we send one
// choice without log probabilities (xAI documents neither for its reasoning models).
const NOT_TAKEN = new Set<ChatOption>([
  'metadata',
  'service_tier',
  'store',
  'prompt_cache_key',
  'cache_control',
  'safety_identifier',
  'pdf',
  'n',
  'logprobs',
  'top_k',
  'verbosity',
]);

/**
 * The models with a reasoning effort: grok-3-mini (`low`, `high`) and grok-4.3 (`none`, `low`, `medium`, `high`);
 * the other grok-4 models reason without one and refuse it.
 */
const hasEffort = (model: string) => model.startsWith('grok-3-mini') || model.startsWith('grok-4.3');

function supports(option: ChatOption, model: string): boolean {
  if (option === 'reasoning_effort') return hasEffort(model);
  if (NOT_TAKEN.has(option)) return false;
  return !(isReasoning(model) && REASONING_REFUSES.has(option));
}

/**
 * `minimal` asks for some reasoning, so it is `low`, never grok-4.3's `none` (no reasoning at all); `none` is `low` on
 * grok-3-mini, which always reasons; above high, `high`.
 */
function effortOf(effort: ReasoningEffort, model: string): string {
  const grok43 = model.startsWith('grok-4.3');
  if (effort === 'none') return grok43 ? 'none' : 'low';
  if (effort === 'minimal' || effort === 'low') return 'low';
  if (effort === 'medium') return grok43 ? 'medium' : 'high';
  return 'high';
}

export const xaiChatProfile: ChatCompletionsProfile = {
  provider: 'xai',
  path: '/chat/completions',
  tokenLimitField: () => 'max_tokens',
  acceptsTemperature: () => true,
  supports,
  reasoningFields: (effort, model) => ({ reasoning_effort: effortOf(effort, model) }),
  acceptsImages: true,
  // xAI's usage keeps reasoning_tokens beside completion_tokens (total = prompt + completion + reasoning).
  reasoningTokensOutsideCompletion: true,
  refineError: refineXaiError,
};

export const xaiChat = createChatCompletionsChat(xaiChatProfile);
