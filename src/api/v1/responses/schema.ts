import { z } from 'zod';
import { fallbackModels } from '../fallback-models';
import { functionName, unsupportedTag } from '../wire-types';

// The Responses request as the official SDK, the Agents SDK and Codex CLI send it. A parameter it does not define is
// refused by name (as OpenAI does); labels are accepted.

const inputText = z.object({ type: z.literal('input_text'), text: z.string() });
const inputImage = z.object({
  type: z.literal('input_image'),
  image_url: z.string().min(1, 'image_url is required: file_id images need stored files, which this server keeps none of'),
  detail: z.enum(['auto', 'low', 'high']).optional(),
});
const outputText = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()).optional(),
  logprobs: z.array(z.unknown()).nullish(),
});
const refusal = z.object({ type: z.literal('refusal'), refusal: z.string() });
/** A document given inline (`file_data`, a base64 PDF); files by id or URL need a file store this server has not. */
const inputFile = z.object({
  type: z.literal('input_file'),
  file_data: z.string().min(1).optional(),
  file_id: z.string().nullish(),
  file_url: z.string().optional(),
  filename: z.string().max(255).optional(),
});

const part = z.discriminatedUnion('type', [inputText, inputImage, inputFile, outputText, refusal], unsupportedTag('content part'));

/** Content given as a string is one text part (the API's shorthand). */
const parts = <T extends z.ZodType>(schema: T) =>
  z
    .preprocess((v) => (typeof v === 'string' ? [{ type: 'input_text', text: v }] : v), z.array(schema))
    .describe('content parts, or a string (one text part)');

const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']).optional();

const messageItem = z.object({
  type: z.literal('message'),
  id: z.string().optional(),
  status: itemStatus,
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: parts(part),
});

const functionCallItem = z.object({
  type: z.literal('function_call'),
  id: z.string().optional(),
  status: itemStatus,
  call_id: z.string().min(1),
  name: functionName,
  namespace: z.string().nullish(),
  arguments: z.string(),
});

const customToolCallItem = z.object({
  type: z.literal('custom_tool_call'),
  id: z.string().optional(),
  status: itemStatus,
  call_id: z.string().min(1),
  name: functionName,
  namespace: z.string().nullish(),
  input: z.string(),
});

const functionCallOutputItem = z.object({
  type: z.literal('function_call_output'),
  id: z.string().nullish(),
  status: itemStatus.nullable(),
  call_id: z.string().min(1),
  output: parts(z.discriminatedUnion('type', [inputText, inputImage], unsupportedTag('function_call_output part'))),
});

const customToolCallOutputItem = z.object({
  type: z.literal('custom_tool_call_output'),
  id: z.string().nullish(),
  status: itemStatus.nullable(),
  call_id: z.string().min(1),
  output: parts(z.discriminatedUnion('type', [inputText, inputImage], unsupportedTag('custom_tool_call_output part'))),
});

/** A web search the vendor ran in an earlier turn, replayed by the client: its results are the vendor's alone. */
const webSearchCallItem = z.object({
  type: z.literal('web_search_call'),
  id: z.string().optional(),
  status: z.string().optional(),
  action: z.record(z.string(), z.unknown()).nullish(),
});

/** A stored item, by its id (a response kept with `store`). */
const itemReference = z.object({ type: z.literal('item_reference'), id: z.string().min(1) });

// An earlier turn's reasoning, sent back by clients that keep it: it informs nothing the other vendors read.
const reasoningItem = z.object({
  type: z.literal('reasoning'),
  id: z.string().optional(),
  summary: z.array(z.unknown()),
  content: z.array(z.unknown()).nullish(),
  encrypted_content: z.string().nullish(),
  status: itemStatus,
});

const functionTool = z.object({
  type: z.literal('function'),
  name: functionName,
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/** A tool the model calls with free-form text, constrained by a grammar where one is given. */
const customTool = z.object({
  type: z.literal('custom'),
  name: functionName,
  description: z.string().nullish(),
  format: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('grammar'), syntax: z.enum(['lark', 'regex']), definition: z.string() }),
    ])
    .nullish(),
});

const namespaceTool = z.object({
  type: z.literal('namespace'),
  name: functionName,
  description: z.string().nullish(),
  tools: z.array(z.discriminatedUnion('type', [functionTool, customTool], unsupportedTag('namespace tool'))).max(128),
});

/** Tools OpenAI runs itself (or its client runs for it); the web search runs where the model's vendor hosts one. */
export const HOSTED_TOOL_TYPES = [
  'web_search',
  'web_search_preview',
  'web_search_2025_08_26',
  'web_search_preview_2025_03_11',
  'file_search',
  'code_interpreter',
  'image_generation',
  'mcp',
  'computer_use_preview',
  'local_shell',
  'shell',
  'apply_patch',
  'tool_search',
] as const;
const hostedTool = z.object({ type: z.enum(HOSTED_TOOL_TYPES) }).catchall(z.unknown());

const tool = z.discriminatedUnion('type', [functionTool, customTool, namespaceTool, hostedTool], unsupportedTag('tool'));

/** Tools offered from this point of the input on (the "responses-lite" form Codex CLI sends). */
const additionalToolsItem = z.object({
  type: z.literal('additional_tools'),
  id: z.string().nullish(),
  role: z.literal('developer').optional(),
  tools: z.array(tool).max(128),
});

const item = z.preprocess(
  // An item without a type is a message (the "easy input message" shape).
  (v) => (v && typeof v === 'object' && !('type' in v) && 'role' in v ? { ...v, type: 'message' } : v),
  z.discriminatedUnion(
    'type',
    [
      messageItem,
      functionCallItem,
      functionCallOutputItem,
      customToolCallItem,
      customToolCallOutputItem,
      reasoningItem,
      webSearchCallItem,
      additionalToolsItem,
      itemReference,
    ],
    unsupportedTag('input item'),
  ),
);

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.enum(['function', 'custom']), name: functionName }),
  z.object({ type: z.literal('allowed_tools'), mode: z.enum(['auto', 'required']), tools: z.array(z.record(z.string(), z.unknown())) }),
  z.object({ type: z.enum(HOSTED_TOOL_TYPES) }).catchall(z.unknown()),
]);

const textFormat = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('text') }),
    z.object({ type: z.literal('json_object') }),
    z.object({
      type: z.literal('json_schema'),
      name: functionName,
      schema: z.record(z.string(), z.unknown()),
      description: z.string().optional(),
      strict: z.boolean().nullish(),
    }),
  ],
  unsupportedTag('text.format'),
);

export const responsesBody = z.object({
  model: z.string().trim().min(1, 'model is required'),
  models: fallbackModels.nullish(),
  input: z.union([z.string(), z.array(item).min(1, 'input must not be empty')]),
  instructions: z.string().nullish(),
  tools: z.array(tool).max(128).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.object({ format: textFormat.optional(), verbosity: z.enum(['low', 'medium', 'high']).nullish() }).nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_obfuscation: z.boolean().optional() }).nullish(),
  truncation: z.enum(['auto', 'disabled']).nullish(),
  include: z.array(z.string()).nullish(),
  reasoning: z
    .object({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish(),
  // Labels: recorded or passed on where a vendor takes them, never a reason to refuse.
  store: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().max(256).nullish(),
  safety_identifier: z.string().max(256).nullish(),
  prompt_cache_key: z.string().nullish(),
  prompt_cache_retention: z.string().nullish(),
  service_tier: z.string().nullish(),
  client_metadata: z.record(z.string(), z.unknown()).nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  max_tool_calls: z.number().int().positive().nullish(),
  context_management: z.array(z.record(z.string(), z.unknown())).nullish(),
  // Stateful features this server does not keep: refused by name when set.
  previous_response_id: z.string().nullish(),
  conversation: z.unknown().optional(),
  background: z.boolean().nullish(),
  prompt: z.unknown().optional(),
});

export type ResponsesBody = z.infer<typeof responsesBody>;
export type ResponsesItem = Exclude<ResponsesBody['input'], string>[number];
export type ResponsesTool = NonNullable<ResponsesBody['tools']>[number];

export const KNOWN_RESPONSES_PARAMETERS: ReadonlySet<string> = new Set(Object.keys(responsesBody.shape));
