import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import { ErrorSchema } from '../openapi/components';
import { documentWebhookEvent } from '../openapi/registry';
import {
  CreatedWebhookSchema,
  QueuedWebhookEventSchema,
  WEBHOOK_EVENT_BODIES,
  WebhookAttemptListSchema,
  WebhookListSchema,
} from '../openapi/webhook-schemas';
import { idParams } from './path-params';
import { addRoute } from './route';

const createBody = z.strictObject({
  url: z.string().trim().min(1).max(2000).describe('https (http outside production); a public address'),
  events: z.array(z.string().max(100)).max(20).optional().describe('default: every event'),
});
const deliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(50) });
const notFound = { description: 'No such webhook on this account', schema: ErrorSchema };

const SIGNING =
  'Each delivery is a POST of the JSON event body, signed per Standard Webhooks: `webhook-id` (the same on every retry), ' +
  '`webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with ' +
  'the base64-decoded part of the secret after `whsec_`). A 2xx within 10 s is success; anything else is retried with ' +
  'exponential backoff and jitter for 24 h.';

/** Webhook endpoints of the caller. Another account's ids answer 404. */
export function registerWebhookRoutes(router: Router, services: Pick<ApiServices, 'webhooks'>): void {
  const { webhooks } = services;
  const tags = ['Webhooks'];

  addRoute(
    router,
    {
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      summary: 'Register a webhook endpoint; the signing secret is in this answer only',
      description: SIGNING,
      tags,
      security: 'bearer',
      body: createBody,
      status: 201,
      responses: {
        201: { description: 'The new endpoint with its secret', schema: CreatedWebhookSchema },
        400: {
          description:
            'Nothing stored: invalid or non-https URL in production (`invalid_url`, `https_required`), a private or loopback address (`forbidden_address`), an unknown event (`unknown_event`), or the endpoint limit reached (`webhook_limit_reached`)',
          schema: ErrorSchema,
        },
      },
    },
    async (ctx, { body }) => webhooks.endpoints.create(authOf(ctx).userId, body),
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'The caller’s webhook endpoints (without secrets)',
      tags,
      security: 'bearer',
      responses: { 200: { description: 'Endpoints', schema: WebhookListSchema } },
    },
    async (ctx) => ({ webhooks: await webhooks.endpoints.list(authOf(ctx).userId) }),
  );

  addRoute(
    router,
    {
      method: 'delete',
      path: '/webhooks/:id',
      operationId: 'deleteWebhook',
      summary: 'Delete an endpoint: nothing more is delivered to it, pending retries included',
      tags,
      security: 'bearer',
      params: idParams,
      responses: { 204: { description: 'Deleted' }, 404: notFound },
    },
    async (ctx, { params }) => {
      await webhooks.endpoints.delete(authOf(ctx).userId, params.id);
      return undefined;
    },
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'Recent delivery attempts to an endpoint, newest first',
      tags,
      security: 'bearer',
      params: idParams,
      query: deliveriesQuery,
      responses: { 200: { description: 'Attempts', schema: WebhookAttemptListSchema }, 404: notFound },
    },
    async (ctx, { params, query }) => ({ deliveries: await webhooks.deliveries(authOf(ctx).userId, params.id, query.limit) }),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/webhooks/:id/test',
      operationId: 'testWebhook',
      summary: 'Send a `webhook.test` event to the endpoint (delivered and retried like any event)',
      tags,
      security: 'bearer',
      params: idParams,
      status: 202,
      responses: { 202: { description: 'Queued for delivery', schema: QueuedWebhookEventSchema }, 404: notFound },
    },
    async (ctx, { params }) => webhooks.sendTest(authOf(ctx).userId, params.id),
  );

  for (const [event, { summary, schema }] of Object.entries(WEBHOOK_EVENT_BODIES)) {
    documentWebhookEvent(router, { event, summary, description: SIGNING, schema });
  }
}
