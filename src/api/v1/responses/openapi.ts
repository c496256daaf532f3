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
    status: z.enum(['completed', 'incomplete', 'failed', 'in_progress']),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    incomplete_details: z.object({ reason: z.string() }).nullable(),
    model: z.string().describe('catalog slug'),
    output: z.array(outputItem),
    store: z.literal(false),
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
      .describe('tokens charged and the balance after the charge'),
  })
  .catchall(z.unknown());
components.add(ResponseSchema, { id: 'Response', description: 'An answer of POST /v1/responses' });

/** POST /v1/responses in the OpenAPI document. */
export function documentResponses(router: Router): void {
  documentOperation(router, {
    method: 'post',
    path: '/responses',
    operationId: 'createResponse',
    summary: 'The OpenAI Responses API, stateless subset, for any chat model of the catalog (OpenAI SDK, Agents SDK)',
    description:
      '`input` as a string or items: messages (input_text, input_image with an https or data: URL for models with ' +
      'config.supports_vision, input_file with file_data), function_call, custom_tool_call and their output items, ' +
      'additional_tools items (the tools they add are offered); `instructions`; function, custom (free-form input) ' +
      'and namespace tools on every vendor (offered as plain functions where the vendor has no such tools, the calls ' +
      'coming back in the shape they were offered), tool_choice (also allowed_tools); the hosted web_search runs where ' +
      "the model's vendor hosts it (OpenAI), priced per search, and other hosted tools are named in X-Ignored-" +
      'Parameters; an OpenAI model that takes tools only on its Responses API is called there. text.format ' +
      '(json_object, json_schema), text.verbosity; max_output_tokens, temperature, top_p; labels (metadata, user, ' +
      'safety_identifier, prompt_cache_key, service_tier, client_metadata, store: false) accepted; reasoning.effort maps to the ' +
      "model's reasoning control, reasoning items come back (summaries with reasoning.summary, encrypted_content with " +
      'include ["reasoning.encrypted_content"], restoring any vendor\'s reasoning when replayed). Nothing is stored: ' +
      '`previous_response_id`, `conversation`, `store: true`, `background` and `prompt` answer 400 naming them. Same ' +
      'accounts, limits, hold and ledger as /v1/chat/completions. With `stream: true` the answer is the documented ' +
      'event stream (response.created, response.in_progress, response.output_item.added, ' +
      'response.content_part.added, response.output_text.delta/.done, response.function_call_arguments.delta/.done, ' +
      'response.content_part.done, response.output_item.done, then response.completed with usage, or ' +
      'response.incomplete / response.failed), each event with its sequence_number.',
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
}
