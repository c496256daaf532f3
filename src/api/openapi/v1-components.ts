// Response shapes of the chat-completions-compatible surface (/v1) as OpenAPI components.
import { z } from 'zod';
import { components } from './components';

function component<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  components.add(schema, description ? { id, description } : { id });
  return schema;
}

export const V1ErrorSchema = component(
  'V1Error',
  z.object({
    error: z.object({
      message: z.string(),
      type: z.string().describe('invalid_request_error, authentication_error, permission_error, rate_limit_error...'),
      code: z.string().nullable().describe('snake_case code, as on /api/v2'),
      param: z.string().nullable().describe('the request parameter at fault, e.g. `n` or `tool_choice`'),
    }),
  }),
  'Error body of /v1 (the chat-completions shape SDK clients parse)',
);

const serviceObject = z
  .object({
    tokens_spent: z.number().int().optional().describe('tokens charged after reconciliation'),
    balance: z.number().int().optional().describe('balance after the charge'),
  })
  .describe('present fields are known; the object may be empty');

const toolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string().describe('JSON text written by the model') }),
});

export const ChatCompletionSchema = component(
  'ChatCompletion',
  z.object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().nullable().describe('null when the model only called tools'),
          refusal: z.string().nullable(),
          tool_calls: z.array(toolCall).optional(),
          reasoning_content: z.string().optional().describe("the model's readable reasoning, when it gives any"),
          reasoning_details: z
            .array(
              z.object({
                type: z.enum(['reasoning.text', 'reasoning.summary', 'reasoning.encrypted']),
                text: z.string().optional(),
                summary: z.string().optional(),
                signature: z.string().optional(),
                data: z.string().optional(),
                id: z.string().optional(),
                format: z.string(),
                index: z.number().int(),
              }),
            )
            .optional()
            .describe("the reasoning with its state (OpenRouter's form): replay it on the assistant message to continue it"),
        }),
        logprobs: z
          .object({
            content: z.array(
              z.object({
                token: z.string(),
                logprob: z.number(),
                bytes: z.array(z.number().int()).nullable(),
                top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number(), bytes: z.array(z.number().int()).nullable() })),
              }),
            ),
            refusal: z.null(),
          })
          .nullable()
          .describe('the answer tokens with their log probabilities, when `logprobs` was asked for'),
        finish_reason: z.enum(['stop', 'length', 'content_filter', 'tool_calls']),
      }),
    ),
    usage: z.object({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
      prompt_tokens_details: z.object({
        cached_tokens: z.number().int().describe('prompt tokens read from the vendor prompt cache'),
        cache_write_tokens: z.number().int().optional().describe('prompt tokens written to the cache (Anthropic)'),
      }),
      completion_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
    }),
    service: serviceObject,
  }),
);

export const V1ModelSchema = component(
  'V1Model',
  z.object({
    id: z.string().describe('catalog slug'),
    object: z.literal('model'),
    created: z.number().int(),
    owned_by: z.string().describe('the provider'),
    category: z.string(),
    upstream_id: z.string().describe("the vendor's id of the model"),
    deprecated_at: z.string().nullable().describe('ISO date the vendor deprecated the model, or null'),
    shutdown_at: z.string().nullable().describe('ISO date the vendor shuts (or shut) the model down, or null'),
    replacement: z
      .string()
      .nullable()
      .describe('the catalog slug that serves requests for the model once it is retired (past shutdown_at or gone), or null'),
  }),
);

export const V1ModelListSchema = component('V1ModelList', z.object({ object: z.literal('list'), data: z.array(V1ModelSchema) }));
