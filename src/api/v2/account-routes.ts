import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../core/accounts/passwords';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import { ApiError } from '../middleware/errors';
import { components, ErrorSchema } from '../openapi/components';
import { REFRESH_COOKIE } from './refresh-cookie';
import { mailLinkBase } from './public-url';
import { addRoute } from './route';

function component<S extends z.ZodType>(id: string, schema: S): S {
  components.add(schema, { id });
  return schema;
}

export const SessionEntrySchema = component(
  'SignInSession',
  z.object({
    id: z.string().describe('the session id (a refresh-token family)'),
    created_at: z.string().describe('when it signed in'),
    last_used_at: z.string().describe('its last sign-in or refresh'),
    user_agent: z.string().nullable(),
    current: z.boolean().describe('the session of this request'),
  }),
);
const SessionListSchema = component('SignInSessionList', z.object({ sessions: z.array(SessionEntrySchema) }));
const PasswordChangedSchema = component(
  'PasswordChanged',
  z.object({ status: z.literal('ok'), sessions_ended: z.number().int().describe('other sessions that were signed out') }),
);
const VerificationSentSchema = component(
  'VerificationSent',
  z.object({ status: z.enum(['sent', 'already_verified']), message: z.string() }),
);

const password = z.string().min(1, 'password is required').max(MAX_PASSWORD_LENGTH);
const changePasswordBody = z.strictObject({
  current_password: password,
  new_password: z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(MAX_PASSWORD_LENGTH),
});
const deleteAccountBody = z.strictObject({
  password: password.optional().describe('required when the account has a password'),
});
const sessionParams = z.object({ id: z.uuid() });

const wrongPassword = { description: 'Wrong password (`invalid_credentials`)', schema: ErrorSchema };
const sessionOnly = {
  description: 'Made with an API key: the account is managed from a web session (`session_required`)',
  schema: ErrorSchema,
};

/** @throws ApiError 403 for API keys: a leaked key must not be able to take the account over. */
function webSessionOf(ctx: Parameters<Middleware>[0]) {
  const auth = authOf(ctx);
  if (auth.via !== 'session') throw new ApiError(403, 'session_required', 'Sign in on the web to manage the account');
  return auth;
}

/**
 * Remembers the browser of each refresh token the auth routes issue (read from their Set-Cookie), for the
 * sessions list; runs after the route, so the routes themselves stay as they are.
 */
export function noteSessionClients(services: Pick<ApiServices, 'accounts'>): Middleware {
  const cookie = new RegExp(`^${REFRESH_COOKIE}=([^;]+)`);
  return async (ctx, next) => {
    await next();
    const set = ctx.response.get('Set-Cookie') as unknown as string[] | string | undefined;
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const token = cookie.exec(line)?.[1];
      if (token) await services.accounts.noteUserAgent(token, ctx.get('User-Agent'));
    }
  };
}

/** The account holder's own account: password, verification mail, sessions, deletion (a web session only). */
export function registerAccountRoutes(router: Router, services: Pick<ApiServices, 'accounts' | 'auth' | 'config'>): void {
  const tags = ['Account'];

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/change-password',
      operationId: 'changePassword',
      summary: 'Change the password; every other session is signed out (this one stays)',
      tags,
      security: 'bearer',
      body: changePasswordBody,
      responses: { 200: { description: 'Changed', schema: PasswordChangedSchema }, 401: wrongPassword, 403: sessionOnly },
    },
    async (ctx, { body }) => {
      const auth = webSessionOf(ctx);
      const { sessionsEnded } = await services.accounts.changePassword(
        auth.userId,
        body.current_password,
        body.new_password,
        auth.sessionId,
      );
      return { status: 'ok' as const, sessions_ended: sessionsEnded };
    },
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/resend-verification',
      operationId: 'resendVerification',
      summary: 'Mail a new email-verification link (valid 48 hours)',
      tags,
      security: 'bearer',
      responses: {
        200: { description: 'Sent, or nothing to do', schema: VerificationSentSchema },
        400: { description: 'The account has no email (`validation_error`)', schema: ErrorSchema },
        403: sessionOnly,
      },
    },
    async (ctx) => {
      const auth = webSessionOf(ctx);
      const { user } = auth;
      if (!user.email) throw new ApiError(400, 'validation_error', 'The account has no email address', { field: 'email' });
      if (user.emailVerifiedAt) return { status: 'already_verified' as const, message: 'The email address is already verified.' };
      await services.auth.sendVerification(user.id, user.email, `${mailLinkBase(ctx, services.config)}/verify-email`);
      return { status: 'sent' as const, message: `A verification link was sent to ${user.email}.` };
    },
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/auth/sessions',
      operationId: 'listSessions',
      summary: 'The account’s signed-in sessions, the most recently used first',
      tags,
      security: 'bearer',
      responses: { 200: { description: 'Sessions', schema: SessionListSchema } },
    },
    async (ctx) => {
      const auth = authOf(ctx);
      return { sessions: await services.accounts.sessions(auth.userId, auth.sessionId) };
    },
  );

  addRoute(
    router,
    {
      method: 'delete',
      path: '/auth/sessions/:id',
      operationId: 'revokeSession',
      summary: 'Sign a session out (its access tokens stop working at once)',
      tags,
      security: 'bearer',
      params: sessionParams,
      responses: {
        204: { description: 'Signed out' },
        403: sessionOnly,
        404: { description: 'No live session with this id on this account', schema: ErrorSchema },
      },
    },
    async (ctx, { params }) => {
      await services.accounts.revokeSession(webSessionOf(ctx).userId, params.id);
      return undefined;
    },
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/user/delete',
      operationId: 'deleteAccount',
      summary: 'Delete the account and its data; its ledger rows are kept, anonymised',
      description:
        'Removes the account with its generations and result files, API keys, sessions, schedules, webhooks, assistants, settings, payment methods and orders. Ledger rows stay with the user id cleared, so the books still add up.',
      tags,
      security: 'bearer',
      body: deleteAccountBody,
      status: 204,
      responses: { 204: { description: 'Deleted' }, 401: wrongPassword, 403: sessionOnly },
    },
    async (ctx, { body }) => {
      await services.accounts.deleteAccount(webSessionOf(ctx).userId, body.password);
      return undefined;
    },
  );
}
