import type Router from '@koa/router';
import { z } from 'zod';
import { BROADCAST_LANGUAGES, BROADCAST_MAX_ACTIVE_DAYS } from '../../../core/broadcasts/broadcast-desk';
import type { ApiServices } from '../../api-services';
import { adminActorOf } from '../../middleware/admin-actor';
import { AdminBroadcastPageSchema, AdminBroadcastSchema } from '../../openapi/admin-broadcast-schemas';
import { ErrorSchema } from '../../openapi/components';
import { adminBroadcastView } from '../../views/admin-broadcasts';
import { idParams } from '../path-params';
import { addRoute } from '../route';

// The text's length is checked in the core (Telegram's 4,096 characters); this bound only keeps bodies small.
const broadcastBody = z.strictObject({
  text: z.string().max(20_000).describe('plain text, sent as written; 1 to 4,096 characters (Telegram’s limit)'),
  segment: z
    .strictObject({
      plans: z.array(z.string().min(1).max(50)).min(1).max(20).optional().describe('plan slugs; absent: every plan'),
      language: z.enum(BROADCAST_LANGUAGES).optional().describe('the bot language the user chose; absent: any'),
      active_days: z
        .number()
        .int()
        .min(1)
        .max(BROADCAST_MAX_ACTIVE_DAYS)
        .optional()
        .describe(`made a request within this many days, 1 to ${BROADCAST_MAX_ACTIVE_DAYS}; absent: anyone`),
    })
    .default({})
    .describe('who gets it, among the bot’s users (blocked accounts and users who blocked the bot are left out)'),
});

const listQuery = z.object({
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('page size, 1 to 100'),
});

const NOT_ADMIN = { description: 'Not an admin’s web session (`admin_required`)', schema: ErrorSchema };
const NOT_FOUND = { description: 'No such broadcast', schema: ErrorSchema };

/** POST/GET /admin/broadcasts, GET /admin/broadcasts/{id}, POST /admin/broadcasts/{id}/cancel (audited). */
export function registerBroadcastRoutes(router: Router, services: Pick<ApiServices, 'broadcasts'>): void {
  const { broadcasts } = services;
  addRoute(
    router,
    {
      method: 'post',
      path: '/broadcasts',
      operationId: 'adminCreateBroadcast',
      summary: 'Send a message to the bot’s users of a segment',
      description:
        'The recipients are chosen at once (`total`), one durable row each; the bot sends under Telegram’s limits ' +
        '(BROADCAST_MESSAGES_PER_SECOND, `retry_after` honoured), resumes after a restart and sends each user at most ' +
        'once. Users who blocked the bot are marked. In the audit log as `broadcast.create`.',
      tags: ['Admin'],
      security: 'bearer',
      body: broadcastBody,
      status: 201,
      responses: {
        201: { description: 'The broadcast, queued (done at once when nobody matched)', schema: AdminBroadcastSchema },
        400: { description: 'An empty or too long text, an unknown plan, a bad segment', schema: ErrorSchema },
        403: NOT_ADMIN,
      },
    },
    async (ctx, { body }) =>
      adminBroadcastView(
        await broadcasts.create(
          body.text,
          { plans: body.segment.plans, language: body.segment.language, activeDays: body.segment.active_days },
          adminActorOf(ctx),
        ),
      ),
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/broadcasts',
      operationId: 'adminListBroadcasts',
      summary: 'Broadcasts, newest first, with their progress',
      tags: ['Admin'],
      security: 'bearer',
      query: listQuery,
      responses: {
        200: { description: 'One page of broadcasts', schema: AdminBroadcastPageSchema },
        400: { description: 'A bad cursor', schema: ErrorSchema },
        403: NOT_ADMIN,
      },
    },
    async (_ctx, { query }) => {
      const page = await broadcasts.list(query.limit, query.cursor);
      return { items: page.items.map(adminBroadcastView), next_cursor: page.nextCursor };
    },
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/broadcasts/:id',
      operationId: 'adminGetBroadcast',
      summary: 'One broadcast and its progress: sent, failed, blocked, pending',
      tags: ['Admin'],
      security: 'bearer',
      params: idParams,
      responses: { 200: { description: 'The broadcast', schema: AdminBroadcastSchema }, 403: NOT_ADMIN, 404: NOT_FOUND },
    },
    async (_ctx, { params }) => adminBroadcastView(await broadcasts.get(params.id)),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/broadcasts/:id/cancel',
      operationId: 'adminCancelBroadcast',
      summary: 'Stop a broadcast: the users not yet sent get nothing',
      description: 'A message being sent this moment still goes. In the audit log as `broadcast.cancel`.',
      tags: ['Admin'],
      security: 'bearer',
      params: idParams,
      responses: {
        200: { description: 'The broadcast, canceled', schema: AdminBroadcastSchema },
        403: NOT_ADMIN,
        404: NOT_FOUND,
        409: { description: 'It has finished or was canceled already (`broadcast_finished`)', schema: ErrorSchema },
      },
    },
    async (ctx, { params }) => adminBroadcastView(await broadcasts.cancel(params.id, adminActorOf(ctx))),
  );
}
