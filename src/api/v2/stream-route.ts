import { announceReplacement } from '../model-replaced';
import Router from '@koa/router';
import { z } from 'zod';
import { ChatMessage } from '../../core/providers/types';
import type { ApiServices } from '../api-services';
import { actorOf, authOf } from '../middleware/auth';
import { applyRateLimitHeaders } from '../middleware/rate-limit-headers';
import { clientSignal } from '../client-signal';
import { openSse } from '../sse';
import { ownOrigins } from './public-url';
import { addRoute } from './route';
import { chatRunErrors } from '../openapi/chat-run-errors';
import { ErrorSchema } from '../openapi/components';

const streamBody = z
  .strictObject({
    model: z.string().trim().min(1),
    prompt: z.string().min(1).max(100_000).optional(),
    system: z.string().max(20_000).optional(),
    messages: z
      .array(z.strictObject({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(100_000) }))
      .min(1)
      .max(200)
      .optional(),
    max_tokens: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
  })
  .refine((b) => (b.prompt === undefined) !== (b.messages === undefined), {
    message: 'give either prompt or messages',
    path: ['prompt'],
  });

export const STREAM_HEARTBEAT_MS = 15_000;

/** Refusals before the event stream opens (a failure after it opened is told in generation_end). */
const streamErrors = (({ 422: _images, ...rest }) => rest)(chatRunErrors(ErrorSchema));

/**
 * POST /api/v2/generate/stream: server-sent events `generation_start`, `content_delta` and `generation_end`,
 * with a `heartbeat` event while the model is silent. Billing is reconciled on what was delivered.
 */
export function registerStreamRoute(router: Router, services: Pick<ApiServices, 'chat' | 'config' | 'generations'>): void {
  addRoute(
    router,
    {
      method: 'post',
      path: '/generate/stream',
      operationId: 'generateStream',
      security: 'bearer',
      openToRestrictedKeys: true,
      summary: 'Stream a text model answer as server-sent events',
      description:
        'Events: generation_start {generation_id, model_slug}; content_delta {text}; generation_end {generation_id, status, tokens_spent, balance, finish_reason, error}; heartbeat {}.',
      tags: ['Generation'],
      body: streamBody,
      responses: { 200: { description: 'Server-sent events', contentType: 'text/event-stream' }, ...streamErrors },
    },
    async (ctx, { body }) => {
      const messages: ChatMessage[] = body.messages ?? [
        ...(body.system ? [{ role: 'system' as const, content: body.system }] : []),
        { role: 'user' as const, content: body.prompt! },
      ];
      // Wired before anything starts: a client gone before the vendor call means no call and no charge.
      const stream = await services.chat.stream(
        actorOf(ctx),
        { model: body.model, messages, maxTokens: body.max_tokens, temperature: body.temperature },
        { source: 'api', ownOrigins: ownOrigins(ctx, services.config) },
        clientSignal(ctx),
      );
      announceReplacement(ctx, stream.replaced, stream.model.slug);
      applyRateLimitHeaders(ctx, stream.rate);
      const sse = openSse(ctx, { everyMs: STREAM_HEARTBEAT_MS, frame: 'event: heartbeat\ndata: {}\n\n' });
      sse.event('generation_start', { generation_id: stream.generationId, model_slug: stream.model.slug });
      let finishReason: string | null = null;
      try {
        for await (const ev of stream.events) {
          if (ev.type === 'delta') {
            if (!sse.event('content_delta', { text: ev.text })) break;
          } else if (ev.type === 'finish') finishReason = ev.finishReason;
        }
      } catch {
        // reported in generation_end below
      }
      const billed = await stream.billed;
      const g =
        billed.failed && !billed.deferred
          ? await services.generations.get(authOf(ctx).userId, billed.generationId).catch(() => undefined)
          : undefined;
      sse.event('generation_end', {
        generation_id: billed.generationId,
        status: billed.failed ? 'failed' : 'completed',
        tokens_spent: billed.tokensSpent,
        balance: billed.balance ?? null,
        finish_reason: finishReason,
        error: g?.error ?? null,
      });
      sse.close();
    },
  );
}
