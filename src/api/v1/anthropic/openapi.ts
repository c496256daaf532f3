import type Router from '@koa/router';
import { z } from 'zod';
import { components } from '../../openapi/components';
import { documentOperation } from '../../openapi/registry';
import { chatRunErrors } from '../../openapi/chat-run-errors';
import { countTokensBody, messagesBody } from './schema';

function component<S extends z.ZodType>(id: string, schema: S, description: string): S {
  components.add(schema, { id, description });
  return schema;
}

export const AnthropicErrorSchema = component(
  'AnthropicError',
  z.object({
    type: z.literal('error'),
    error: z.object({
      type: z
        .string()
        .describe(
          'invalid_request_error (400), authentication_error (401), billing_error (402), permission_error (403), ' +
            'not_found_error (404), request_too_large (413), rate_limit_error (429), api_error (5xx), ' +
            'overloaded_error (503), timeout_error (504)',
        ),
      message: z.string(),
    }),
  }),
  'Error body of /v1/messages (the Anthropic Messages API shape its SDKs parse)',
);

const usage = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_creation_input_tokens: z.number().int(),
  cache_read_input_tokens: z.number().int(),
});

export const AnthropicMessageSchema = component(
  'AnthropicMessage',
  z.object({
    id: z.string(),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string().describe('catalog slug'),
    content: z.array(
      z.union([
        z.object({ type: z.literal('text'), text: z.string() }),
        z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
        z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
        z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
      ]),
    ),
    stop_reason: z.enum(['end_turn', 'max_tokens', 'tool_use', 'refusal']),
    stop_sequence: z.null(),
    usage,
    service: z
      .object({ tokens_spent: z.number().int().optional(), balance: z.number().int().optional() })
      .describe('tokens charged and the balance after the charge'),
  }),
  'An answer of POST /v1/messages',
);

const TokenCountSchema = component(
  'AnthropicTokenCount',
  z.object({ input_tokens: z.number().int().describe('the prompt size as the hold estimates it') }),
  'Answer of POST /v1/messages/count_tokens',
);

const tags = ['Messages (Anthropic-compatible)'];
const errorSchema = AnthropicErrorSchema;

/** POST /v1/messages and /v1/messages/count_tokens in the OpenAPI document. */
export function documentMessages(router: Router): void {
  documentOperation(router, {
    method: 'post',
    path: '/messages',
    operationId: 'createMessage',
    summary: 'The Anthropic Messages API for any chat model of the catalog (Anthropic SDKs, Claude Code)',
    description:
      'Authenticated with `x-api-key` or `Authorization: Bearer`; `anthropic-version` and `anthropic-beta` are accepted. ' +
      '`system` (string or text blocks), messages with text, image (base64 or url, for models with ' +
      'config.supports_vision), document (base64 PDF, plain text, content, url) and search_result blocks (also inside ' +
      'tool_result; sent to Claude as they are, to other vendors as their text or the PDF, a document by URL only to ' +
      'Claude), tool_use and tool_result blocks; `cache_control` breakpoints reach Claude models (others ' +
      'cache on their own); thinking (enabled with budget_tokens, adaptive, disabled) and output_config.effort map to ' +
      "the model's reasoning control; thinking and redacted_thinking blocks come back with their signatures (other " +
      "vendors' reasoning sealed in them) and replayed blocks go back to their vendor unchanged. " +
      'tools, tool_choice (auto, any, tool, none), max_tokens (required), stop_sequences, temperature, top_p, top_k ' +
      '(sampling controls a model lacks are ignored and named in X-Ignored-Parameters), ' +
      'metadata.user_id, output_config.format (structured output: the text is JSON of the schema); ' +
      'context_management is accepted. Same accounts, limits, hold and ledger as /v1/chat/completions. ' +
      'With `stream: true` the answer is the event sequence message_start, content_block_start, ping, ' +
      'content_block_delta (thinking_delta, signature_delta, text_delta, input_json_delta), content_block_stop, message_delta (stop_reason, usage, ' +
      'service), message_stop; a failure after the start is an `error` event.',
    tags,
    security: 'bearer',
    apiKeyHeader: true,
    body: messagesBody,
    bodyLimitBytes: 32 * 1024 * 1024,
    errorSchema,
    responses: {
      200: {
        description: 'The message (or, with stream: true, text/event-stream events)',
        schema: AnthropicMessageSchema,
        headers: { 'X-Token-Balance': 'balance after the charge (not on streams)' },
      },
      ...chatRunErrors(errorSchema),
    },
  });
  documentOperation(router, {
    method: 'post',
    path: '/messages/count_tokens',
    operationId: 'countMessageTokens',
    summary: 'The prompt size of a Messages request, as the hold estimates it (nothing is held or counted)',
    tags,
    security: 'bearer',
    apiKeyHeader: true,
    body: countTokensBody,
    bodyLimitBytes: 32 * 1024 * 1024,
    errorSchema,
    responses: {
      200: { description: 'The count', schema: TokenCountSchema },
      404: { description: 'No model with this id', schema: errorSchema },
      410: { description: 'model_retired: the model is retired and has no replacement', schema: errorSchema },
    },
  });
}
