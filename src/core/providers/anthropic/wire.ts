import { z } from 'zod';

// Anthropic Messages API wire shapes (https://docs.anthropic.com/en/api/messages), only the fields we read.

export const ANTHROPIC_VERSION = '2023-06-01';

export const anthropicUsage = z.object({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
});

const contentBlock = z.object({
  type: z.string(),
  text: z.string().optional(),
  /** tool_use blocks */
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
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
    delta: z.object({ type: z.string(), text: z.string().optional(), partial_json: z.string().optional() }),
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

/** Request body we send; `system` is a top-level field, never a message. */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: { role: 'user' | 'assistant'; content: AnthropicContentBlock[] }[];
  system?: string;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: { type: 'auto' | 'any' | 'none' } | { type: 'tool'; name: string } | AnthropicToolChoiceFlags;
  metadata?: { user_id: string };
  thinking?: { type: 'enabled'; budget_tokens: number };
  output_config?: { format: { type: 'json_schema'; schema: Record<string, unknown> } };
  stream?: boolean;
}

type AnthropicToolChoiceFlags =
  { type: 'auto' | 'any'; disable_parallel_tool_use: boolean } | { type: 'tool'; name: string; disable_parallel_tool_use: boolean };

export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'document'; source: { type: 'base64'; media_type: 'application/pdf'; data: string }; title?: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };
