import { ChatCompletionsProfile, createChatCompletionsChat } from '../openai-compatible';
import type { ChatOption, ChatRequest, ChatRequestTraits, ReasoningEffort } from '../types';
import { openAiFamily } from './families';

/**
 * o-series, GPT-5 and GPT-6 models are reasoning models: they refuse `max_tokens` (it must be
 * `max_completion_tokens`, which also covers their hidden reasoning tokens) and any temperature but
 * the default. Older chat models keep `max_tokens`, which OpenAI-compatible self-hosted servers
 * behind OPENAI_BASE_URL also understand.
 */
export function isOpenAiReasoningModel(model: string): boolean {
  return openAiFamily(model) !== undefined;
}

// Documented output ceilings of older OpenAI chat models (the reasoning families carry theirs).
const OUTPUT_CEILINGS: Array<[prefix: string, tokens: number]> = [
  ['gpt-4.1', 32768],
  ['gpt-4o', 16384],
];

// Reasoning models refuse sampling controls: only the default temperature, no top_p, penalties or stop.
const REASONING_REFUSES = new Set<ChatOption>(['top_p', 'presence_penalty', 'frequency_penalty', 'stop']);

const SCALE: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * The model's nearest accepted effort: the next one up where the family lacks it (`minimal` becomes `low` where the
 * family has no `minimal`), its highest above what it takes.
 */
export function nearestOpenAiEffort(effort: ReasoningEffort, model: string): string {
  const efforts = openAiFamily(model)?.efforts ?? [];
  if (efforts.length === 0) return effort;
  const rank = (e: string) => SCALE.indexOf(e as ReasoningEffort);
  return efforts.find((e) => rank(e) >= rank(effort)) ?? efforts[efforts.length - 1];
}

/**
 * Some GPT-6 models call functions on Chat Completions only with reasoning off (`reasoning_effort: "none"`, which
 * the body then carries): a requested effort gives way to the tools.
 */
function toolsNeedNoReasoning(model: string, traits?: ChatRequestTraits): boolean {
  return openAiFamily(model)?.tools === 'without-reasoning' && (traits?.options.has('tools') ?? false);
}

/** Reasoning models give token log probabilities only with reasoning off: those whose efforts include `none`. */
function logprobsWithoutReasoning(model: string): boolean {
  return openAiFamily(model)?.efforts.includes('none') ?? false;
}

function supports(option: ChatOption, model: string, traits?: ChatRequestTraits): boolean {
  const family = openAiFamily(model);
  if (option === 'reasoning_effort') {
    const offForLogprobs = traits?.options.has('logprobs') ?? false;
    return family !== undefined && !toolsNeedNoReasoning(model, traits) && !offForLogprobs;
  }
  if (option === 'tools' || option === 'parallel_tool_calls') return family?.tools !== 'responses-only';
  if (option === 'n') return true;
  if (option === 'logprobs') return family === undefined || logprobsWithoutReasoning(model);
  // `verbosity` came with GPT-5; OpenAI has no top_k.
  if (option === 'verbosity') return family !== undefined && !/^o\d/.test(model);
  // OpenAI caches prompts on its own (prompt_cache_key steers it); breakpoints mean nothing there.
  if (option === 'top_k' || option === 'cache_control') return false;
  return !(family && REASONING_REFUSES.has(option));
}

/** Fields the model needs whatever the caller asked: reasoning off where tools or log probabilities need it. */
function requiredFields(model: string, req: ChatRequest): Record<string, unknown> {
  const family = openAiFamily(model);
  if (family?.tools === 'without-reasoning' && req.tools?.length) return { reasoning_effort: 'none' };
  if (family && req.logprobs !== undefined) return { reasoning_effort: 'none' };
  return {};
}

export const openAiChatProfile: ChatCompletionsProfile = {
  provider: 'openai',
  path: '/chat/completions',
  tokenLimitField: (model) => (isOpenAiReasoningModel(model) ? 'max_completion_tokens' : 'max_tokens'),
  maxOutputTokens: (model) => openAiFamily(model)?.maxOutput ?? OUTPUT_CEILINGS.find(([prefix]) => model.startsWith(prefix))?.[1],
  acceptsTemperature: (model) => !isOpenAiReasoningModel(model),
  supports,
  reasoningFields: (effort, model) => ({ reasoning_effort: nearestOpenAiEffort(effort, model) }),
  requiredFields,
  acceptsImages: true,
  reasoningTokensOutsideCompletion: false,
};

export const openAiChat = createChatCompletionsChat(openAiChatProfile);
