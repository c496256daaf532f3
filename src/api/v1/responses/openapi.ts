import type Router from '@koa/router';
import { z } from 'zod';
import { components } from '../../openapi/components';
import { V1ErrorSchema } from '../../openapi/v1-components';
import { documentOperation } from '../../openapi/registry';
import { chatRunErrors } from '../../openapi/chat-run-errors';
import { responsesBody } from './schema';

const outputItem = z.union([
  z.object({
    type: z.literal('message'),
    id: z.string(),
    status: z.literal('completed'),
    role: z.literal('assistant'),
    content: z.array(
      z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()), logprobs: z.array(z.unknown()) }),
    ),
  }),
  z.object({
    type: z.literal('function_call'),
    id: z.string(),
    call_id: z.string().describe('answer it with a function_call_output item of this call_id'),
    name: z.string(),
    namespace: z.string().optional().describe('the namespace of a tool offered in a namespace tool'),
    arguments: z.string().describe('JSON text written by the model'),
    status: z.literal('completed'),
  }),
  z.object({
    type: z.literal('custom_tool_call'),
    id: z.string(),
    call_id: z.string().describe('answer it with a custom_tool_call_output item of this call_id'),
    name: z.string(),
    namespace: z.string().optional(),
    input: z.string().describe('free-form text written by the model'),
    status: z.literal('completed'),
  }),
  z.object({
    type: z.literal('web_search_call'),
    id: z.string(),
    status: z.enum(['completed', 'failed']),
    action: z.record(z.string(), z.unknown()).describe('what the vendor searched for: {type: "search", query}'),
  }),
  z.object({
    type: z.literal('reasoning'),
    id: z.string(),
    summary: z.array(z.object({ type: z.literal('summary_text'), text: z.string() })).describe('with reasoning.summary set'),
    encrypted_content: z
      .string()
      .optional()
      .describe('with include ["reasoning.encrypted_content"]: replay the item to restore the reasoning (any vendor)'),
  }),
]);

export const ResponseSchema = z
  .object({
    id: z.string(),
    object: z.literal('response'),
    created_at: z.number().int(),
    status: z.enum(['completed', 'incomplete', 'failed', 'in_progress', 'queued', 'cancelled']),
    background: z.boolean().describe('run as a durable job: queued, then in_progress, then completed (poll it with GET)'),
    previous_response_id: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    incomplete_details: z.object({ reason: z.string() }).nullable(),
    model: z.string().describe('catalog slug'),
    output: z.array(outputItem),
    store: z.boolean().describe('kept for the account (the default): read back, continued, listed, deleted'),
    usage: z
      .object({
        input_tokens: z.number().int(),
        input_tokens_details: z.object({ cached_tokens: z.number().int() }),
        output_tokens: z.number().int(),
        output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
        total_tokens: z.number().int(),
      })
      .nullable(),
    service: z
      .object({ tokens_spent: z.number().int().optional(), balance: z.number().int().optional() })
      .optional()
      .describe('tokens charged and the balance after the charge (once answered)'),
  })
  .catchall(z.unknown());
components.add(ResponseSchema, { id: 'Response', description: 'An answer of POST /v1/responses' });

/** POST /v1/responses in the OpenAPI document. */
export function documentResponses(router: Router): void {
  documentOperation(router, {
    method: 'post',
    path: '/responses',
    operationId: 'createResponse',
    summary: 'The OpenAI Responses API for any chat model of the catalog (OpenAI SDK, Agents SDK, Codex CLI)',
    description:
      '`input` as a string or items: messages (input_text, input_image with an https or data: URL for models with ' +
      'config.supports_vision, input_file with file_data), function_call, custom_tool_call and their output items, ' +
      'additional_tools items (the tools they add are offered), item_reference (a stored item by id); `instructions`; ' +
      'function, custom (free-form input) and namespace tools on every vendor (offered as plain functions where the ' +
      'vendor has no such tools, the calls coming back in the shape they were offered), tool_choice (also ' +
      'allowed_tools); the hosted web_search runs where the model’s vendor hosts it (OpenAI), priced per search, and ' +
      'other hosted tools are named in X-Ignored-Parameters; an OpenAI model that takes tools only on its Responses API ' +
      'is called there. text.format (json_object, json_schema), text.verbosity; max_output_tokens, temperature, top_p; ' +
      'labels (metadata, user, safety_identifier, prompt_cache_key, service_tier, client_metadata) accepted; ' +
      "reasoning.effort maps to the model's reasoning control, reasoning items come back (summaries with " +
      'reasoning.summary, encrypted_content with include ["reasoning.encrypted_content"], restoring any vendor\'s ' +
      "reasoning when replayed). `store` defaults to true, as at OpenAI: the response is kept for the plan's retention " +
      '(read with GET /v1/responses/{id}, its input items listed, deleted) and continued with `previous_response_id` ' +
      "(its input items and output come before this request's input; instructions and tools are not carried over). " +
      '`background: true` (with store) answers at once with the `queued` response and runs it as a durable job, polled ' +
      'with GET and cancelled with POST /v1/responses/{id}/cancel (not streamed: `stream` with it answers 400). ' +
      '`conversation` and `prompt` (stored templates) answer 400 naming them. Same accounts, limits, hold and ledger as ' +
      '/v1/chat/completions. With `stream: true` the answer is the documented event stream (response.created, ' +
      'response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta/.done, ' +
      'response.function_call_arguments.delta/.done, response.custom_tool_call_input.delta/.done, ' +
      'response.web_search_call.in_progress/.searching/.completed, response.content_part.done, ' +
      'response.output_item.done, then response.completed with usage, or response.incomplete / response.failed), each ' +
      'event with its sequence_number.',
    tags: ['Responses (compatible)'],
    security: 'bearer',
    body: responsesBody,
    bodyLimitBytes: 30 * 1024 * 1024,
    errorSchema: V1ErrorSchema,
    responses: {
      200: {
        description: 'The response (or, with stream: true, text/event-stream events)',
        schema: ResponseSchema,
        headers: { 'X-Token-Balance': 'balance after the charge (not on streams)' },
      },
      ...chatRunErrors(V1ErrorSchema),
    },
  });
  documentStoredResponses(router);
}

const responseId = z.object({ id: z.string().describe('`resp_…`') });
const include = z.object({
  include: z
    .array(z.string())
    .optional()
    .describe("`reasoning.encrypted_content` shows the reasoning items' encrypted content (also as `include[]`)"),
});
const notFound = {
  description: 'No stored response of this account (or, for a restricted key, of this key) with this id',
  schema: V1ErrorSchema,
};
const common = {
  tags: ['Responses (compatible)'],
  security: 'bearer' as const,
  apiKeyHeader: true,
  openToRestrictedKeys: true,
  errorSchema: V1ErrorSchema,
};

/** The stored-response operations: retrieve, input items, delete, cancel. */
function documentStoredResponses(router: Router): void {
  documentOperation(router, {
    ...common,
    method: 'get',
    path: '/responses/:id',
    operationId: 'getResponse',
    summary: 'A stored response: as answered, or a background one as it runs (queued, in_progress) and ends',
    params: responseId,
    query: include,
    responses: { 200: { description: 'The response', schema: ResponseSchema }, 404: notFound },
  });
  documentOperation(router, {
    ...common,
    method: 'get',
    path: '/responses/:id/input_items',
    operationId: 'listResponseInputItems',
    summary: "The items a stored response was generated from (its previous responses' included), a page at a time",
    params: responseId,
    query: include.extend({
      after: z.string().optional().describe('the id of the item after which the page starts'),
      limit: z.number().int().min(1).max(100).optional().describe('items per page, 20 unless set'),
      order: z.enum(['asc', 'desc']).optional().describe('`desc` (newest first) unless set'),
    }),
    responses: {
      200: {
        description: 'A page of items',
        schema: z.object({
          object: z.literal('list'),
          data: z.array(z.record(z.string(), z.unknown()).describe('an input item, with its id')),
          first_id: z.string().nullable(),
          last_id: z.string().nullable(),
          has_more: z.boolean(),
        }),
      },
      404: notFound,
    },
  });
  documentOperation(router, {
    ...common,
    method: 'delete',
    path: '/responses/:id',
    operationId: 'deleteResponse',
    summary: 'Deletes a stored response (a background one still running stops)',
    params: responseId,
    responses: {
      200: { description: 'Deleted', schema: z.object({ id: z.string(), object: z.literal('response'), deleted: z.literal(true) }) },
      404: notFound,
    },
  });
  documentOperation(router, {
    ...common,
    method: 'post',
    path: '/responses/:id/cancel',
    operationId: 'cancelResponse',
    summary: 'Cancels a background response: a queued one at once, a running one within moments, billed for what was written',
    params: responseId,
    responses: {
      200: { description: 'The response (cancelled, or as it ended)', schema: ResponseSchema },
      400: { description: '`response_not_cancellable`: it did not run in the background', schema: V1ErrorSchema },
      404: notFound,
    },
  });
}
