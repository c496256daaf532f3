import { ChatCompletionsProfile, createChatCompletionsChat } from '../openai-compatible';
import { ChatOption, ChatRequest, ProviderError, ReasoningEffort } from '../types';

// V4.1 Flash since DeepSeek renamed it (the catalog's slug deepseek-v4-flash sends this id); DeepSeek still accepts
// the old name and serves it with the same model.
const FLASH = 'deepseek-flash';
const LEGACY_FLASH = 'deepseek-v4-flash';
const PRO = 'deepseek-v4-pro';
const flash = (model: string) => model === FLASH || model === LEGACY_FLASH;

/**
 * 402 "Insufficient Balance" means the operator's account is out of funds: a credentials-level
 * refusal that retrying will not fix.
 */
export function refineDeepSeekError(err: ProviderError): ProviderError {
  if (err.upstreamStatus === 402) return err.as('auth');
  return err;
}

// DeepSeek's models page: both V4 models take a 1M-token context and write at most 384K tokens.
const OUTPUT_CEILINGS: Record<string, number> = { [FLASH]: 384000, [LEGACY_FLASH]: 384000, [PRO]: 384000 };

// DeepSeek documents no seed, no `user`, no parallel_tool_calls switch and no json_schema output. V4 Flash, which we
// run without thinking unless asked, has function calling, JSON output and the sampling controls; V4 Pro thinks by
// default, and thinking mode ignores the sampling controls.
const FLASH_OPTIONS = new Set<ChatOption>([
  'tools',
  'response_format.json_object',
  'stop',
  'top_p',
  'presence_penalty',
  'frequency_penalty',
  'reasoning_effort',
]);
const PRO_OPTIONS = new Set<ChatOption>(['tools', 'stop', 'reasoning_effort']);

/**
 * DeepSeek's thinking mode: `thinking: {type: "enabled"}` turns it on (the V4 default) and `reasoning_effort` takes
 * `low`, `high` or `max` (DeepSeek maps minimal to low and medium to high itself; sent mapped).
 */
function reasoningFields(effort: ReasoningEffort): Record<string, unknown> {
  if (effort === 'none') return { thinking: { type: 'disabled' } };
  const named = effort === 'minimal' || effort === 'low' ? 'low' : effort === 'max' ? 'max' : 'high';
  return { thinking: { type: 'enabled' }, reasoning_effort: named };
}

/** An earlier assistant turn called tools without its reasoning_content (the client did not keep it). */
const lostReasoning = (req: ChatRequest) =>
  req.messages.some(
    (m) =>
      m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0 && !m.reasoning?.some((r) => r.provider === 'deepseek' && r.type === 'text'),
  );

/**
 * In thinking mode DeepSeek refuses (400) a conversation whose earlier assistant tool calls come back without their
 * `reasoning_content`. Our answers carry it (each surface in its own shape) and a replayed turn gives it back, so a
 * tool loop keeps thinking; a client that dropped it gets its conversation run without thinking, the mode in which
 * DeepSeek ignores it: a `reasoning_effort` is then ignored (and named so), and V4 Pro is told not to think. Flash
 * answers directly, as deepseek-chat did, until a reasoning effort is asked.
 */
function thinkingFields(model: string, req: ChatRequest): Record<string, unknown> {
  if (!flash(model) && model !== PRO) return {};
  if (lostReasoning(req)) return { thinking: { type: 'disabled' }, reasoning_effort: undefined };
  return flash(model) && (req.reasoningEffort === undefined || req.reasoningEffort === 'none') ? { thinking: { type: 'disabled' } } : {};
}

export const deepSeekChatProfile: ChatCompletionsProfile = {
  provider: 'deepseek',
  path: '/chat/completions',
  tokenLimitField: () => 'max_tokens',
  maxOutputTokens: (model) => OUTPUT_CEILINGS[model],
  // Thinking mode accepts temperature for compatibility but ignores it; leave it out.
  acceptsTemperature: (model) => model !== PRO,
  supports: (option, model, traits) => {
    // Log probabilities come only without thinking: V4 Flash as it answers by default.
    if (option === 'logprobs') return flash(model);
    const thinkingExcluded = traits?.unreasonedToolTurns || traits?.options.has('logprobs');
    return (model === PRO ? PRO_OPTIONS : FLASH_OPTIONS).has(option) && !(option === 'reasoning_effort' && thinkingExcluded);
  },
  reasoningFields,
  requiredFields: thinkingFields,
  acceptsImages: false,
  reasoningTokensOutsideCompletion: false,
  replaysReasoningContent: true,
  refineError: refineDeepSeekError,
};

export const deepSeekChat = createChatCompletionsChat(deepSeekChatProfile);
