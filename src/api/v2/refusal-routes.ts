import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../api-services';
import { authOf, ownReadsOf } from '../middleware/auth';
import { ErrorSchema, RefusalPageSchema } from '../openapi/components';
import { addRoute } from './route';

const isoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2026-01-31T00:00:00Z' });

const refusalQuery = z.object({
  status: z.coerce
    .number()
    .int()
    .refine((s) => s === 402 || s === 403 || s === 429, 'must be 402, 403 or 429')
    .optional()
    .describe('402 (tokens, key budget), 403 (plan, key scope) or 429 (request limits)'),
  key: z.coerce.number().int().min(1).max(2_147_483_647).optional().describe('only calls made with this API key id'),
  from: isoDateTime.optional().describe('refused at or after (inclusive)'),
  to: isoDateTime.optional().describe('refused before (exclusive)'),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('page size, 1 to 100'),
});

/** GET /user/refusals: the calls the service refused before running anything, for the request log. */
export function registerRefusalRoutes(router: Router, services: Pick<ApiServices, 'refusals'>): void {
  addRoute(
    router,
    {
      method: 'get',
      path: '/user/refusals',
      operationId: 'listRefusals',
      openToRestrictedKeys: true,
      summary: 'Calls refused before anything ran (402, 403, 429), newest first',
      description:
        'Each refusal of the account (a key below its plan, a model outside a key’s list, a balance or key budget too small, ' +
        'an hourly or daily limit) with its route, model, status and message. Identical refusals within about a second ' +
        'are one row with `count`. A restricted API key sees only its own. Kept 90 days.',
      tags: ['User'],
      security: 'bearer',
      query: refusalQuery,
      responses: {
        200: { description: 'One page of refusals', schema: RefusalPageSchema },
        400: { description: 'Invalid filter or cursor', schema: ErrorSchema },
      },
    },
    async (ctx, { query }) =>
      services.refusals.list(authOf(ctx).userId, {
        status: query.status,
        keyId: query.key,
        onlyKey: ownReadsOf(ctx),
        from: query.from ? new Date(query.from) : undefined,
        to: query.to ? new Date(query.to) : undefined,
        cursor: query.cursor,
        limit: query.limit,
      }),
  );
}
