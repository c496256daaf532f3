import { z } from 'zod';
import { fallbackModels } from './fallback-models';
import { BODY_CAPS } from './body-caps';
import { unsupportedTag } from './wire-types';
import { reasoningDetail, thinkingBlock } from './chat-reasoning';

/** Anthropic's prompt-cache breakpoint, which several gateways take on chat content parts, messages and tools. */
export const cacheControl = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() }).nullish();

const textPart = z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControl });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.union([z.string(), z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() })]),
  cache_control: cacheControl,
});
/** A document, as chat-completions clients send one: `file_data` is a base64 `data:` URI (or bare base64) of a PDF. */
const filePart = z.object({
  type: z.literal('file'),
  file: z.object({
    file_data: z.string().min(1).optional(),
    file_id: z.string().min(1).optional(),
    filename: z.string().max(255).optional(),
  }),
  cache_control: cacheControl,
});
const userPart = z.discriminatedUnion('type', [textPart, imagePart, filePart], unsupportedTag('content part'));
const textContent = z.union([z.string(), z.array(textPart).min(1)]);

const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

// A message-level cache_control marks the message's last part (LiteLLM's shorthand for string content).
const message = z.discriminatedUnion('role', [
  z.object({ role: z.enum(['system', 'developer']), content: textContent, name: z.string().optional(), cache_control: cacheControl }),
  z.object({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(userPart).min(1)]),
    name: z.string().optional(),
    cache_control: cacheControl,
  }),
  z.object({
    role: z.literal('assistant'),
    content: textContent.nullish(),
    tool_calls: z.array(toolCall).nullish(),
    refusal: z.string().nullish(),
    name: z.string().optional(),
    cache_control: cacheControl,
    // The turn's reasoning as this server (and the common gateways) hand it out, replayed to its vendor.
    reasoning_content: z.string().nullish(),
    reasoning: z.string().nullish(),
    reasoning_details: z.array(reasoningDetail).max(256).nullish(),
    thinking_blocks: z.array(thinkingBlock).max(256).nullish(),
  }),
  z.object({ role: z.literal('tool'), content: textContent, tool_call_id: z.string().min(1), cache_control: cacheControl }),
]);

const functionName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'function names are 1-64 letters, digits, _ or -');

const tool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: functionName,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
  cache_control: cacheControl,
});

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: functionName }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: functionName,
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

/** The chat-completions request as SDK clients send it. Parameters not listed here are refused (see router). */
export const chatCompletionBody = z.object({
  model: z.string().trim().min(1, 'model is required'),
  models: fallbackModels.nullish(),
  messages: z.array(message).min(1, 'messages must not be empty').max(BODY_CAPS.items),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  n: z.number().int().min(1).max(128).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stop: z.union([z.string().min(1), z.array(z.string().min(1)).max(4)]).nullish(),
  seed: z.number().int().nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  user: z.string().max(256).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(tool).max(BODY_CAPS.tools).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: responseFormat.nullish(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).nullish(),
  verbosity: z.enum(['low', 'medium', 'high']).nullish(),
  // Labels: passed on where the vendor takes them, otherwise ignored and named in X-Ignored-Parameters.
  metadata: z.record(z.string().max(64), z.string().max(512)).nullish(),
  service_tier: z.enum(['auto', 'default', 'flex', 'scale', 'priority']).nullish(),
  store: z.boolean().nullish(),
  prompt_cache_key: z.string().max(1024).nullish(),
  safety_identifier: z.string().max(256).nullish(),
  /** Text is the only output this server produces: `["text"]` passes, audio is refused by name. */
  modalities: z.array(z.enum(['text', 'audio'])).nullish(),
});

export type ChatCompletionBody = z.infer<typeof chatCompletionBody>;

export const KNOWN_PARAMETERS: ReadonlySet<string> = new Set(Object.keys(chatCompletionBody.shape));
