import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../../api-services';
import { AdminUserDetailSchema, AdminUserPageSchema } from '../../openapi/admin-user-schemas';
import { ErrorSchema } from '../../openapi/components';
import { adminUserDetailView, adminUserPageView } from '../../views/admin-users';
import { idParams } from '../path-params';
import { addRoute } from '../route';

const userQuery = z.object({
  q: z
    .string()
    .max(200)
    .optional()
    .describe('an id, an email (a prefix, any case), a Telegram id, a Telegram username (with or without @) or a phone'),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('page size, 1 to 100'),
});

const NOT_ADMIN = { description: 'Not an admin’s web session (`admin_required`)', schema: ErrorSchema };

/** GET /admin/users, GET /admin/users/{id}. */
export function registerUserRoutes(router: Router, services: Pick<ApiServices, 'adminUsers' | 'config'>): void {
  const { adminUsers } = services;
  const tags = ['Admin'];

  addRoute(
    router,
    {
      method: 'get',
      path: '/users',
      operationId: 'adminListUsers',
      summary: 'Find accounts by id, email, Telegram id or username, or phone; newest first',
      description:
        'Without `q`, every account. A number may be an id, a Telegram id or a phone’s digits: each reading that matches ' +
        'is listed. Emails and usernames match by prefix, in any case.',
      tags,
      security: 'bearer',
      query: userQuery,
      responses: {
        200: { description: 'One page of accounts', schema: AdminUserPageSchema },
        400: { description: 'A bad limit or cursor', schema: ErrorSchema },
        403: NOT_ADMIN,
      },
    },
    async (_ctx, { query }) => adminUserPageView(await adminUsers.search({ q: query.q, cursor: query.cursor, limit: query.limit })),
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/users/:id',
      operationId: 'adminGetUser',
      summary: 'One account: its latest ledger rows and generations, its API keys and live sessions',
      tags,
      security: 'bearer',
      params: idParams,
      responses: {
        200: { description: 'The account', schema: AdminUserDetailSchema },
        404: { description: 'No such account (`not_found`)', schema: ErrorSchema },
        403: NOT_ADMIN,
      },
    },
    async (_ctx, { params }) => adminUserDetailView(await adminUsers.detail(params.id), services.config.links),
  );
}
