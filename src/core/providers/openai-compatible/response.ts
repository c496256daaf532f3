import { ChatUsage, FinishReason, TokenLogprob } from '../types';
import type { ChatCompletionsProfile } from './profile';
import type { WireLogprobs, WireUsage } from './wire';

/** Anything unknown counts as a normal stop. */
export function mapFinishReason(raw: string | null | undefined): FinishReason {
  if (raw === 'length') return 'length';
  if (raw === 'tool_calls' || raw === 'function_call') return 'tool_calls';
  if (raw === 'content_filter') return 'content_filter';
  return 'stop';
}

export function mapUsage(profile: ChatCompletionsProfile, usage: WireUsage): ChatUsage {
  const prompt = usage.prompt_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  let completion = usage.completion_tokens ?? 0;
  if (profile.reasoningTokensOutsideCompletion) completion += reasoning;
  const cached = Math.min(prompt, usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0);
  return {
    promptTokens: prompt,
    completionTokens: completion,
    ...(cached > 0 ? { cachedTokens: cached } : {}),
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

/** A choice's token log probabilities in the core's (Chat Completions') shape; undefined when none came. */
export function mapLogprobs(logprobs: WireLogprobs): TokenLogprob[] | undefined {
  const content = logprobs?.content;
  if (!content) return undefined;
  const bytes = (b: number[] | null | undefined) => b ?? null;
  return content.map((t) => ({
    token: t.token,
    logprob: t.logprob,
    bytes: bytes(t.bytes),
    top_logprobs: (t.top_logprobs ?? []).map((a) => ({ token: a.token, logprob: a.logprob, bytes: bytes(a.bytes) })),
  }));
}
