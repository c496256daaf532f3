import { z } from 'zod';
import { fallbackModels } from '../fallback-models';
import { BODY_CAPS } from '../body-caps';
import { functionName, unsupportedTag } from '../wire-types';

// The Anthropic Messages request as the official SDK and Claude Code send it. Like the Messages API, a field it
// does not define is refused by name; `cache_control` marks are accepted and have no effect on the answer.

/** Content given as a string is one text block (the API's shorthand); as blocks, each names a type this server reads. */
const blocks = <T extends z.ZodType>(block: T) =>
  z
    .preprocess((v) => (typeof v === 'string' ? [{ type: 'text', text: v }] : v), z.array(block))
    .describe('content blocks, or a string (one text block)');

const cacheControl = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() }).nullish();

const textBlock = z.object({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControl,
  citations: z.array(z.unknown()).nullish(),
});

const imageBlock = z.object({
  type: z.literal('image'),
  source: z.discriminatedUnion(
    'type',
    [
      z.object({
        type: z.literal('base64'),
        media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
        data: z.string().min(1),
      }),
      z.object({ type: z.literal('url'), url: z.string().min(1) }),
    ],
    unsupportedTag('image source'),
  ),
  cache_control: cacheControl,
});

const citationsSetting = z.object({ enabled: z.boolean().optional() }).nullish();
const plainTextBlock = z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControl });

const documentBlock = z.object({
  type: z.literal('document'),
  source: z.discriminatedUnion(
    'type',
    [
      z.object({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: z.string().min(1) }),
      z.object({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
      z.object({ type: z.literal('url'), url: z.string().url() }),
      z.object({ type: z.literal('content'), content: blocks(plainTextBlock) }),
    ],
    unsupportedTag('document source'),
  ),
  title: z.string().max(500).nullish(),
  context: z.string().nullish(),
  citations: citationsSetting,
  cache_control: cacheControl,
});

const searchResultBlock = z.object({
  type: z.literal('search_result'),
  source: z.string(),
  title: z.string(),
  content: z.array(plainTextBlock),
  citations: citationsSetting,
  cache_control: cacheControl,
});

const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: functionName,
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControl,
});

const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: blocks(
    z.discriminatedUnion('type', [textBlock, imageBlock, documentBlock, searchResultBlock], unsupportedTag('tool_result content')),
  ).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl,
});

// Earlier turns' reasoning, sent back by clients that keep it: it informs nothing the other vendors read, so it is dropped.
const thinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() });
const redactedThinkingBlock = z.object({ type: z.literal('redacted_thinking'), data: z.string() });

const block = z.discriminatedUnion(
  'type',
  [textBlock, imageBlock, documentBlock, searchResultBlock, toolUseBlock, toolResultBlock, thinkingBlock, redactedThinkingBlock],
  unsupportedTag('content block'),
);

const message = z.object({
  role: z.enum(['user', 'assistant']),
  content: blocks(block),
});

const tool = z.object({
  type: z.literal('custom').optional(),
  name: functionName,
  description: z.string().optional(),
  input_schema: z.object({ type: z.literal('object') }).catchall(z.unknown()),
  cache_control: cacheControl,
});

const toolChoice = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
    z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
    z.object({ type: z.literal('tool'), name: functionName, disable_parallel_tool_use: z.boolean().optional() }),
    z.object({ type: z.literal('none') }),
  ],
  unsupportedTag('tool_choice'),
);

// Extended thinking as Claude Code sends it; newer kinds of the setting are accepted too (it shapes how long the
// model reasons, never what the answer may contain).
const thinking = z.object({ type: z.string().min(1), budget_tokens: z.number().int().min(1).optional() }).catchall(z.unknown());

const requestFields = {
  model: z.string().trim().min(1, 'model is required'),
  messages: z.array(message).min(1, 'messages must not be empty').max(BODY_CAPS.items),
  system: blocks(textBlock).optional(),
  tools: z.array(tool).max(BODY_CAPS.tools).optional(),
  tool_choice: toolChoice.optional(),
  thinking: thinking.optional(),
};

export const messagesBody = z.strictObject({
  ...requestFields,
  models: fallbackModels.optional(),
  max_tokens: z.number().int().min(1, 'max_tokens must be at least 1'),
  // Four is what every vendor of the catalog takes.
  stop_sequences: z.array(z.string().min(1)).max(4).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(1).optional(),
  metadata: z.object({ user_id: z.string().max(256).nullish() }).optional(),
  service_tier: z.enum(['auto', 'standard_only']).optional(),
  output_config: z
    .object({
      effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).nullish(),
      format: z.object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish(),
    })
    .optional(),
  // Server-side pruning of old tool results (Claude Code's context-management beta): without it the whole
  // conversation goes to the model, which changes no answer's correctness.
  context_management: z.record(z.string(), z.unknown()).optional(),
});

export const countTokensBody = z.strictObject(requestFields);

export type MessagesBody = z.infer<typeof messagesBody>;
export type CountTokensBody = z.infer<typeof countTokensBody>;
export type AnthropicMessage = MessagesBody['messages'][number];
