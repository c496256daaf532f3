import type Router from '@koa/router';
import { z } from 'zod';
import { documentOperation } from '../openapi/registry';
import { ChatCompletionSchema, V1ErrorSchema, V1ModelListSchema, V1ModelSchema } from '../openapi/v1-components';
import { chatCompletionBody } from './schemas';
import { chatRunErrors } from '../openapi/chat-run-errors';

const tags = ['Chat completions (compatible)'];
const errorSchema = V1ErrorSchema;

/** The /v1 operations in the OpenAPI document (errors in the compatible shape). */
export function documentV1(router: Router): void {
  documentOperation(router, {
    method: 'post',
    path: '/chat/completions',
    operationId: 'createChatCompletion',
    summary: 'Chat completions, compatible with the OpenAI SDKs (any text model of the catalog)',
    description:
      'Roles system, developer (as system), user, assistant (with tool_calls, content null) and tool. Honoured: tools, ' +
      'tool_choice, response_format (json_object, json_schema: on every vendor, through its own structured-output ' +
      'mechanism), max_tokens, max_completion_tokens, stream, stream_options.include_usage. reasoning_effort maps to ' +
      "the model's reasoning control (models with config.supports_reasoning_effort). Sampling controls (temperature, " +
      'top_p, stop, presence_penalty, frequency_penalty) and verbosity, labels and hints (metadata, service_tier, ' +
      'store, user, prompt_cache_key, safety_identifier, seed, parallel_tool_calls, reasoning_effort) are passed on ' +
      'where the model takes them and otherwise ignored, named in the X-Ignored-Parameters header. `n` > 1 (one ' +
      "choice each, billed on the vendor's count of them all) and `logprobs`/`top_logprobs` work on the vendors " +
      'that have them (OpenAI; log probabilities also on DeepSeek V4 Flash; an OpenAI reasoning model then answers ' +
      'without reasoning) and answer 400 naming them elsewhere. Images (image_url: https or data:) only for models ' +
      'with config.supports_vision; PDF documents as `file` parts (file_data, base64) for vision models of vendors ' +
      'that read PDFs. Any other parameter, audio output and an unknown content part type answer 400 naming it in ' +
      '`param`. ' +
      'With `stream: true` the answer is server-sent events of chat.completion.chunk objects ending in `[DONE]`; the ' +
      'last chunk carries the `service` object. `models` (as OpenRouter takes it) lists fallback models, tried in ' +
      'order when `model` cannot serve before its first byte (an outage, an overload, a retirement): each must be ' +
      "open to the key and the plan and take the request; the answer's `model` names the one that served, billed at " +
      'its price.',
    tags,
    security: 'bearer',
    body: chatCompletionBody,
    errorSchema,
    responses: {
      200: {
        description: 'The completion (or, with stream: true, text/event-stream chunks)',
        schema: ChatCompletionSchema,
        headers: {
          'X-Token-Balance': 'balance after the charge (not on streams)',
          'X-Ignored-Parameters': 'request parameters the model has no equivalent for, ignored (comma-separated; absent when none)',
          'X-Model-Replaced':
            '`<requested>-><served>` when the requested model is retired and its replacement answered (then `model` is the replacement)',
        },
      },
      ...chatRunErrors(errorSchema),
    },
  });
  documentOperation(router, {
    method: 'get',
    path: '/models',
    operationId: 'listV1Models',
    summary: 'The catalog in the compatible format (no prices: see GET /api/v2/models)',
    tags,
    security: 'bearer',
    errorSchema,
    responses: { 200: { description: 'Models', schema: V1ModelListSchema } },
  });
  documentOperation(router, {
    method: 'get',
    path: '/models/:id',
    operationId: 'getV1Model',
    summary: 'One model in the compatible format, with its lifecycle (a retired slug is described too)',
    tags,
    security: 'bearer',
    params: z.object({ id: z.string().describe('catalog slug') }),
    errorSchema,
    responses: {
      200: { description: 'The model', schema: V1ModelSchema },
      404: { description: 'No model with this id', schema: errorSchema },
    },
  });
}
