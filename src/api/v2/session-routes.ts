import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../api-services';
import { bearerToken } from '../middleware/auth';
import { ApiError, NOT_AUTHENTICATED } from '../middleware/errors';
import { ErrorSchema, RefreshedSchema } from '../openapi/components';
import { AUTH_TAGS as tags, BLOCKED } from './auth-shared';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie } from './refresh-cookie';
import { addRoute } from './route';

const refreshBody = z.strictObject({
  refresh_token: z.string().max(512).optional().describe('for clients without cookies; the cookie is preferred'),
});

/** A signed-in browser's session: refresh (rotating the refresh token) and sign-out. Public routes. */
export function registerSessionRoutes(router: Router, services: Pick<ApiServices, 'auth'>): void {
  const { auth } = services;

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/refresh',
      operationId: 'refreshSession',
      summary: 'New access token from the refresh cookie; the refresh token is rotated',
      description:
        'Every refresh replaces the refresh token (new cookie). Presenting a replaced token again ends the whole session (reuse detection, RFC 9700).',
      tags,
      security: 'refresh_cookie',
      body: refreshBody,
      responses: {
        200: { description: 'A new access token; the rotated refresh cookie is set', schema: RefreshedSchema },
        401: { description: 'No, an unknown, an expired or a reused refresh token', schema: ErrorSchema },
        403: BLOCKED,
      },
    },
    async (ctx, { body }) => {
      const fromCookie = readRefreshCookie(ctx);
      const token = fromCookie ?? body.refresh_token;
      if (!token) throw new ApiError(401, 'not_authenticated', NOT_AUTHENTICATED);
      try {
        const next = await auth.refresh(token);
        setRefreshCookie(ctx, next.refreshToken, next.refreshExpiresAt);
        return {
          access_token: next.accessToken,
          token_type: 'bearer',
          expires_in: next.expiresIn,
          ...(fromCookie ? {} : { refresh_token: next.refreshToken }),
        };
      } catch (err) {
        clearRefreshCookie(ctx);
        throw err;
      }
    },
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/logout',
      operationId: 'logout',
      summary: 'End the session: revokes the refresh token family and clears the cookie',
      tags,
      security: 'refresh_cookie',
      body: refreshBody,
      responses: { 204: { description: 'Signed out (also when there was no session)' } },
    },
    async (ctx, { body }) => {
      const bearer = bearerToken(ctx);
      let sessionId: string | undefined;
      if (bearer && !bearer.startsWith('nb_')) {
        sessionId = await auth.resolveBearer(bearer).then(
          (p) => p.sessionId,
          () => undefined,
        );
      }
      await auth.logout(readRefreshCookie(ctx) ?? body.refresh_token, sessionId);
      clearRefreshCookie(ctx);
      return undefined;
    },
  );
}
