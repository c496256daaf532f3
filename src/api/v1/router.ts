import crypto from 'node:crypto';
import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { lifecycleFields, listModels } from '../../core/catalog/catalog';
import { requireCatalogEntry } from '../../core/catalog/lifecycle';
import { ChatChoice, ChatReasoning, ChatUsage, FinishReason } from '../../core/providers/types';
import { reasoningEnvelope } from '../../core/generations/chat/reasoning-envelope';
import { reasoningContent, reasoningDetails } from './chat-reasoning';
import type { ApiServices } from '../api-services';
import { refuseWhileDraining } from '../health-routes';
import { authenticate, authOf } from '../middleware/auth';
import { describeError, v1ErrorBody } from '../middleware/errors';
import { readJsonBody } from '../middleware/json-body';
import { parseInput } from '../middleware/validation';
import { attachOpenApi, OpenApiRegistry } from '../openapi/registry';
import { checkBodyCaps } from './body-caps';
import { ChatRunServices, completeChat, serviceObject, streamChat } from './chat-run';
import { registerMessagesRoutes } from './anthropic/routes';
import { documentV1 } from './openapi';
import { registerResponsesRoutes } from './responses/routes';
import { registerMediaRoutes } from './media/routes';
import { refuseUnknownParameters, toChatInput } from './messages';
import { chatCompletionBody } from './schemas';

/** Name of the adjacent billing object in chat-completions answers. */
export const SERVICE_OBJECT = 'service';
const CHAT_BODY_LIMIT = 30 * 1024 * 1024;
const CATALOG_EPOCH = 1732200000;

const finishReason = (r: FinishReason | undefined | null) => r ?? 'stop';

function assistantMessage(result: ChatChoice & { reasoning?: ChatReasoning[] }): Record<string, unknown> {
  const { text, toolCalls, reasoning } = result;
  const shown = reasoningContent(reasoning);
  const thought = {
    ...(shown !== undefined ? { reasoning_content: shown } : {}),
    ...(reasoning?.length ? { reasoning_details: reasoning.flatMap((r, i) => reasoningDetails(r, i)) } : {}),
  };
  if (!toolCalls?.length) return { role: 'assistant', content: text, refusal: null, ...thought };
  return {
    role: 'assistant',
    content: text === '' ? null : text,
    refusal: null,
    ...thought,
    tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
  };
}

/** Usage with OpenAI's details: cached prompt tokens (and cache writes, as OpenRouter names them), reasoning tokens. */
function usageOf(usage: ChatUsage): Record<string, unknown> {
  const { promptTokens, completionTokens } = usage;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cachedTokens ?? 0,
      ...(usage.cacheWriteTokens ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

async function chatCompletions(ctx: ParameterizedContext, services: ChatRunServices): Promise<void> {
  const raw = await readJsonBody(ctx, { limitBytes: CHAT_BODY_LIMIT });
  checkBodyCaps('chat', raw);
  refuseUnknownParameters(raw);
  const body = parseInput(chatCompletionBody, raw, 'body');
  const input = toChatInput(body, reasoningEnvelope(services.config.reasoningSecret));
  const id = `chatcmpl-${crypto.randomBytes(12).toString('base64url')}`;
  const created = Math.floor(Date.now() / 1000);

  if (!body.stream) {
    const out = await completeChat(ctx, services, input);
    const answers: ChatChoice[] = [out.result, ...(out.result.moreChoices ?? [])];
    ctx.body = {
      id,
      object: 'chat.completion',
      created,
      model: out.model.slug,
      choices: answers.map((a, index) => ({
        index,
        message: assistantMessage(index === 0 ? out.result : a),
        logprobs: a.logprobs ? { content: a.logprobs, refusal: null } : null,
        finish_reason: finishReason(a.finishReason),
      })),
      usage: usageOf(out.result.usage),
      [SERVICE_OBJECT]: serviceObject(out),
    };
    return;
  }

  const { stream, sse } = await streamChat(ctx, services, input);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: stream.model.slug,
    choices,
    ...extra,
  });
  const count = input.choices ?? 1;
  const first = Array.from({ length: count }, (_v, index) => ({
    index,
    delta: { role: 'assistant', content: '' },
    logprobs: null,
    finish_reason: null,
  }));
  sse.data(chunk(first));
  const finishes: (FinishReason | undefined)[] = [];
  let usage: Record<string, unknown> | undefined;
  let reasoningIndex = 0;
  let streamedReasoning = false;
  let failure: unknown;
  const delta = (index: number, fields: Record<string, unknown>, logprobs: unknown = null) =>
    sse.data(chunk([{ index, delta: fields, logprobs, finish_reason: null }]));
  try {
    for await (const ev of stream.events) {
      if (ev.type === 'delta') {
        if (!delta(ev.choice ?? 0, { content: ev.text })) break;
      } else if (ev.type === 'tool_call') {
        const fn = ev.name !== undefined ? { name: ev.name, arguments: ev.arguments } : { arguments: ev.arguments };
        const call = { index: ev.index, ...(ev.id !== undefined ? { id: ev.id, type: 'function' } : {}), function: fn };
        if (!delta(ev.choice ?? 0, { tool_calls: [call] })) break;
      } else if (ev.type === 'logprobs') {
        if (!delta(ev.choice ?? 0, {}, { content: ev.content, refusal: null })) break;
      } else if (ev.type === 'reasoning_delta') {
        streamedReasoning = true;
        if (!delta(0, { reasoning_content: ev.text })) break;
      } else if (ev.type === 'reasoning') {
        // A block that streamed its text brings its state now; one that arrives whole brings its text too.
        const text = !streamedReasoning ? reasoningContent([ev.reasoning]) : undefined;
        streamedReasoning = false;
        const fields = {
          ...(text !== undefined ? { reasoning_content: text } : {}),
          reasoning_details: reasoningDetails(ev.reasoning, reasoningIndex++),
        };
        if (!delta(0, fields)) break;
      } else if (ev.type === 'finish') finishes[ev.choice ?? 0] = ev.finishReason;
      else if (ev.type === 'usage') usage = usageOf(ev.usage);
    }
  } catch (err) {
    failure = err;
  }
  const billed = await stream.billed;
  if (failure !== undefined) {
    sse.data({
      ...v1ErrorBody(describeError(failure)),
      [SERVICE_OBJECT]: serviceObject({ tokensSpent: billed.tokensSpent, balance: billed.balance }),
    });
  } else {
    const wantsUsage = body.stream_options?.include_usage === true;
    for (let index = 0; index < count; index++) {
      const last = index === count - 1;
      const extra = last && !wantsUsage ? { [SERVICE_OBJECT]: serviceObject(billed) } : {};
      sse.data(chunk([{ index, delta: {}, logprobs: null, finish_reason: finishReason(finishes[index] ?? finishes[0]) }], extra));
    }
    if (wantsUsage) sse.data(chunk([], { usage: usage ?? null, [SERVICE_OBJECT]: serviceObject(billed) }));
  }
  sse.data('[DONE]');
  sse.close();
}

/** The chat-completions-compatible surface under /v1 (errors in the compatible shape). */
export function createV1Router(
  services: Pick<
    ApiServices,
    | 'chat'
    | 'config'
    | 'auth'
    | 'limiter'
    | 'readiness'
    | 'generations'
    | 'idempotency'
    | 'resultFiles'
    | 'profiles'
    | 'responses'
    | 'preflight'
  >,
  registry?: OpenApiRegistry,
): Router {
  const router = new Router({ prefix: '/v1' });
  if (registry) {
    attachOpenApi(router, registry);
    documentV1(router);
  }
  router.use(refuseWhileDraining(services));
  // Model-running requests set the rate headers from the counters they consume; no separate read first.
  router.use(authenticate(services, { peekLimits: false, apiKeyHeader: true }));
  router.use(async (ctx, next) => {
    ctx.set('X-RateLimit-Limit', String(authOf(ctx).plan.rateLimitHourly));
    await next();
  });
  router.post('/chat/completions', (ctx) => chatCompletions(ctx, services));
  registerResponsesRoutes(router, services);
  registerMessagesRoutes(router, services);
  registerMediaRoutes(router, services);
  router.get('/models', (ctx) => {
    ctx.body = {
      object: 'list',
      data: listModels().map((m) => ({
        id: m.slug,
        object: 'model',
        created: CATALOG_EPOCH,
        owned_by: m.provider,
        category: m.category,
        ...lifecycleFields(m.slug, m.upstreamModel),
      })),
    };
  });
  // A retired slug is still described (with its shutdown and replacement), so a client can see what serves it.
  router.get('/models/:id', (ctx) => {
    const m = requireCatalogEntry(String(ctx.params.id));
    ctx.body = {
      id: m.slug,
      object: 'model',
      created: CATALOG_EPOCH,
      owned_by: m.provider,
      category: m.category,
      ...lifecycleFields(m.slug, m.upstreamModel),
    };
  });
  return router;
}
