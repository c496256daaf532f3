import { z } from 'zod';

// The parts of the Chat Completions wire format the adapters read. Unknown fields are ignored, so
// vendor extras (DeepSeek's prompt_cache_hit_tokens, xAI's num_sources_used...) pass through harmlessly.

export const usageSchema = z.object({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  /** DeepSeek's own count of prompt tokens served from its context cache. */
  prompt_cache_hit_tokens: z.number().nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
});
export type WireUsage = z.infer<typeof usageSchema>;

const alternative = z.object({ token: z.string(), logprob: z.number(), bytes: z.array(z.number()).nullish() });
const tokenLogprob = alternative.extend({ top_logprobs: z.array(alternative).nullish() });
/** A choice's `logprobs`: the answer's tokens (`content`), when the request asked for them. */
const choiceLogprobs = z.object({ content: z.array(tokenLogprob).nullish() }).nullish();
export type WireLogprobs = z.infer<typeof choiceLogprobs>;

export const completionSchema = z.object({
  id: z.string().nullish(),
  choices: z.array(
    z.object({
      index: z.number().nullish(),
      message: z.object({
        role: z.string().nullish(),
        content: z.string().nullish(),
        /** DeepSeek reasoner / grok-3-mini chain of thought: never shown as the answer. */
        reasoning_content: z.string().nullish(),
        refusal: z.string().nullish(),
        tool_calls: z
          .array(
            z.object({
              id: z.string(),
              type: z.string().nullish(),
              function: z.object({ name: z.string(), arguments: z.string().nullish() }),
            }),
          )
          .nullish(),
      }),
      finish_reason: z.string().nullish(),
      logprobs: choiceLogprobs,
    }),
  ),
  usage: usageSchema.nullish(),
});
export type WireCompletion = z.infer<typeof completionSchema>;

export const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().nullish(),
        delta: z
          .object({
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().nullish(),
                  id: z.string().nullish(),
                  type: z.string().nullish(),
                  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
        logprobs: choiceLogprobs,
      }),
    )
    .nullish(),
  usage: usageSchema.nullish(),
  /** Some vendors report a failure inside an already started 200 stream. */
  error: z.unknown().optional(),
});
export type WireChunk = z.infer<typeof chunkSchema>;

export type WireContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'file'; file: { file_data: string; filename?: string } };

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type WireMessage =
  | { role: 'system' | 'user'; content: string | WireContentPart[] }
  | { role: 'assistant'; content: string | WireContentPart[] | null; tool_calls?: WireToolCall[]; reasoning_content?: string }
  | { role: 'tool'; tool_call_id: string; content: string };
