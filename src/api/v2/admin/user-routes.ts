import type Router from '@koa/router';
import { z } from 'zod';
import { MAX_GRANT_TOKENS, MAX_REASON_LENGTH } from '../../../core/admin/user-desk';
import type { ApiServices } from '../../api-services';
import { adminActorOf } from '../../middleware/admin-actor';
import { AdminUserDetailSchema, AdminUserPageSchema, AdminUserSchema, SessionsRevokedSchema } from '../../openapi/admin-user-schemas';
import { ErrorSchema } from '../../openapi/components';
import { adminUserDetailView, adminUserPageView, adminUserView } from '../../views/admin-users';
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

const reason = z.string().trim().min(1, 'give a reason').max(MAX_REASON_LENGTH, `at most ${MAX_REASON_LENGTH} characters`);

const grantBody = z.strictObject({
  bonus_tokens: z
    .number()
    .int()
    .min(1)
    .max(MAX_GRANT_TOKENS)
    .describe(`bonus tokens to give, 1 to ${MAX_GRANT_TOKENS} (the bot's /admin grant bound)`),
  reason: reason.describe(`why (1 to ${MAX_REASON_LENGTH} characters): in the ledger row's note and the audit log`),
});

const planBody = z.strictObject({
  plan: z.string().min(1).max(50).describe('a plan slug (GET /api/v2/plans)'),
  expires_at: z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z' })
    .nullable()
    .describe('when the plan ends (in the future; it lapses to Starter at the first period end after it); null: it renews until changed'),
});

const blockBody = z.strictObject({
  blocked: z.boolean().describe('true blocks, false unblocks'),
  reason: reason.optional().describe(`why (1 to ${MAX_REASON_LENGTH} characters): required to block`),
});

const NOT_ADMIN = { description: 'Not an admin’s web session (`admin_required`)', schema: ErrorSchema };

/** GET /admin/users, GET /admin/users/{id}; POST …/{id}/grant, plan, block, sessions/revoke (each audited). */
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

  addRoute(
    router,
    {
      method: 'post',
      path: '/users/:id/grant',
      operationId: 'adminGrantTokens',
      summary: 'Give the account bonus tokens (a ledger grant), with a reason',
      description:
        'The ledger row and the audit row (`user.grant`, the balance before and after) are written in one transaction. ' +
        'A bad body changes nothing and is not audited.',
      tags,
      security: 'bearer',
      params: idParams,
      body: grantBody,
      responses: {
        200: { description: 'The account after the grant', schema: AdminUserSchema },
        400: { description: 'A bad body (`validation_error` naming the field): nothing changed', schema: ErrorSchema },
        404: { description: 'No such account (`not_found`)', schema: ErrorSchema },
        403: NOT_ADMIN,
      },
    },
    async (ctx, { params, body }) => adminUserView(await adminUsers.grant(params.id, body.bonus_tokens, body.reason, adminActorOf(ctx))),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/users/:id/plan',
      operationId: 'adminSetPlan',
      summary: 'Move the account to a plan from now, until a date or until changed',
      description:
        'A new period starts now with the plan’s allowance. Audited (`user.plan`, before and after). An unknown plan, a past ' +
        '`expires_at`, or an end date on Starter is a 400 with nothing changed.',
      tags,
      security: 'bearer',
      params: idParams,
      body: planBody,
      responses: {
        200: { description: 'The account on its new plan', schema: AdminUserSchema },
        400: { description: 'A bad body, an unknown plan or a past date (`validation_error`): nothing changed', schema: ErrorSchema },
        404: { description: 'No such account (`not_found`)', schema: ErrorSchema },
        403: NOT_ADMIN,
      },
    },
    async (ctx, { params, body }) =>
      adminUserView(
        await adminUsers.setPlan(params.id, body.plan, body.expires_at === null ? null : new Date(body.expires_at), adminActorOf(ctx)),
      ),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/users/:id/block',
      operationId: 'adminBlockUser',
      summary: 'Block the account (or unblock it)',
      description:
        'A blocked account is refused at once everywhere: its sessions are revoked, its API keys and access tokens answer ' +
        '403 `account_blocked` from the next request on, the bot answers it only that it is blocked. Unblocking lets it ' +
        'sign in again. Audited (`user.block`, `user.unblock`); asking for the state it is in changes nothing. An admin ' +
        'cannot block their own account (409 `cannot_block_self`).',
      tags,
      security: 'bearer',
      params: idParams,
      body: blockBody,
      responses: {
        200: { description: 'The account after the change', schema: AdminUserSchema },
        400: { description: 'A bad body, or no reason to block (`validation_error`): nothing changed', schema: ErrorSchema },
        404: { description: 'No such account (`not_found`)', schema: ErrorSchema },
        409: { description: 'The admin’s own account (`cannot_block_self`)', schema: ErrorSchema },
        403: NOT_ADMIN,
      },
    },
    async (ctx, { params, body }) => adminUserView(await adminUsers.setBlocked(params.id, body.blocked, body.reason, adminActorOf(ctx))),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/users/:id/sessions/revoke',
      operationId: 'adminRevokeSessions',
      summary: 'Sign every session of the account out',
      description: 'Its access tokens stop at once; its API keys are untouched. Audited (`user.sessions_revoke`).',
      tags,
      security: 'bearer',
      params: idParams,
      responses: {
        200: { description: 'How many live sessions were signed out', schema: SessionsRevokedSchema },
        404: { description: 'No such account (`not_found`)', schema: ErrorSchema },
        403: NOT_ADMIN,
      },
    },
    async (ctx, { params }) => adminUsers.revokeSessions(params.id, adminActorOf(ctx)),
  );
}
