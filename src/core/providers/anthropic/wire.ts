import { z } from 'zod';

// Anthropic Messages API wire shapes (https://docs.anthropic.com/en/api/messages), only the fields we read.

export const ANTHROPIC_VERSION = '2023-06-01';

/** `input_tokens` leaves out the prompt tokens read from or written to the cache, which have their own fields. */
export const anthropicUsage = z.object({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});
export type AnthropicUsage = z.infer<typeof anthropicUsage>;

const contentBlock = z.object({
  type: z.string(),
  text: z.string().optional(),
  /** tool_use blocks */
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
  /** thinking blocks */
  thinking: z.string().optional(),
  signature: z.string().optional(),
  /** redacted_thinking blocks */
  data: z.string().optional(),
});

export const anthropicMessage = z.object({
  type: z.literal('message'),
  content: z.array(contentBlock),
  stop_reason: z.string().nullable().optional(),
  usage: anthropicUsage,
});
export type AnthropicMessage = z.infer<typeof anthropicMessage>;

export const anthropicErrorBody = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string() }),
});

/** The SSE `data` payloads of a streamed message; unknown event types are ignored by the reader. */
export const anthropicStreamEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message: z.object({ usage: anthropicUsage }) }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: contentBlock }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number(),
    delta: z.object({
      type: z.string(),
      text: z.string().optional(),
      partial_json: z.string().optional(),
      thinking: z.string().optional(),
      signature: z.string().optional(),
    }),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullable().optional() }),
    usage: anthropicUsage.optional(),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  anthropicErrorBody,
]);
export type AnthropicStreamEvent = z.infer<typeof anthropicStreamEvent>;

/** A prompt-cache breakpoint on a block. */
export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** Request body we send; `system` is a top-level field, never a message. */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: { role: 'user' | 'assistant'; content: AnthropicContentBlock[] }[];
  system?: string | { type: 'text'; text: string; cache_control?: AnthropicCacheControl }[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown>; cache_control?: AnthropicCacheControl }[];
  tool_choice?: { type: 'auto' | 'any' | 'none' } | { type: 'tool'; name: string } | AnthropicToolChoiceFlags;
  metadata?: { user_id: string };
  thinking?: { type: 'enabled'; budget_tokens: number; display?: string } | { type: 'adaptive'; display?: string } | { type: 'disabled' };
  output_config?: { format?: { type: 'json_schema'; schema: Record<string, unknown> }; effort?: string };
  stream?: boolean;
}

type AnthropicToolChoiceFlags =
  { type: 'auto' | 'any'; disable_parallel_tool_use: boolean } | { type: 'tool'; name: string; disable_parallel_tool_use: boolean };

type Cached = { cache_control?: AnthropicCacheControl };

export type AnthropicDocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'url'; url: string }
  | { type: 'content'; content: { type: 'text'; text: string }[] };

export type AnthropicContentBlock =
  | ({ type: 'text'; text: string } & Cached)
  | ({ type: 'image'; source: { type: 'base64'; media_type: string; data: string } } & Cached)
  | ({ type: 'document'; source: AnthropicDocumentSource; title?: string; context?: string; citations?: { enabled: boolean } } & Cached)
  | ({
      type: 'search_result';
      source: string;
      title: string;
      content: { type: 'text'; text: string }[];
      citations?: { enabled: boolean };
    } & Cached)
  | ({ type: 'tool_use'; id: string; name: string; input: unknown } & Cached)
  | ({ type: 'tool_result'; tool_use_id: string; content: string | AnthropicContentBlock[] } & Cached)
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };
