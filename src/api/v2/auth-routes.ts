import type Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import type { SignInResult } from '../../core/accounts/auth-service';
import { emailSchema, phoneSchema } from '../../core/accounts/identifiers';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../core/accounts/passwords';
import type { ApiServices } from '../api-services';
import { bearerToken } from '../middleware/auth';
import { ApiError, NOT_AUTHENTICATED } from '../middleware/errors';
import { limitPerEmail, limitPerIp, SIGN_IN_LIMITS } from '../middleware/ip-limit';
import {
  IpRateLimitErrorSchema,
  PasswordSignInLimitErrorSchema,
  RefreshedSchema,
  SessionSchema,
  StatusMessageSchema,
  ErrorSchema,
} from '../openapi/components';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie } from './refresh-cookie';
import { mailLinkBase } from './public-url';
import { addRoute } from './route';

const password = z.string().min(1, 'password is required').max(MAX_PASSWORD_LENGTH);
const newPassword = z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(MAX_PASSWORD_LENGTH);

const messengerBody = z
  .object({
    id: z.number().int().positive(),
    first_name: z.string().max(256),
    last_name: z.string().max(256).optional(),
    username: z.string().max(64).optional(),
    photo_url: z.string().max(2048).optional(),
    auth_date: z.number().int().positive(),
    hash: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be the 64-character hex signature'),
  })
  // Fields Telegram adds later are signed too, so they are accepted and checked with the rest.
  .catchall(z.union([z.string().max(2048), z.number()]))
  .describe('The Telegram Login Widget payload, as received');

const loginBody = z.strictObject({ email: emailSchema, password });
const loginPhoneBody = z.strictObject({ phone: phoneSchema, password });
const idpBody = z.strictObject({
  id_token: z.string().min(1).max(16_384).optional().describe('the identity provider ID token (required)'),
  code: z.string().max(4096).optional().describe('older variant: not supported'),
  redirect_uri: z.string().max(4096).optional().describe('older variant: not supported'),
});
const registerBody = z.strictObject({
  email: emailSchema,
  password: newPassword,
  name: z.string().trim().min(1).max(100).optional().describe('display name (default: the part of the email before @)'),
});
const refreshBody = z.strictObject({
  refresh_token: z.string().max(512).optional().describe('for clients without cookies; the cookie is preferred'),
});
const forgotBody = z.strictObject({ email: emailSchema });
const resetBody = z.strictObject({
  token: z.string().min(1).max(512),
  password: newPassword,
  revoke_api_keys: z
    .boolean()
    .default(false)
    .describe('also delete every API key of the account (default false: keys keep working; refresh sessions always end)'),
});
const verifyEmailBody = z.strictObject({ token: z.string().min(1).max(512).describe('the token from the verification mail') });

function sessionBody(result: SignInResult, opts: { refreshInBody: boolean; newUserFlag: boolean }) {
  return {
    access_token: result.accessToken,
    token_type: 'bearer' as const,
    expires_in: result.expiresIn,
    ...(opts.refreshInBody ? { refresh_token: result.refreshToken } : {}),
    ...(opts.newUserFlag ? { is_new_user: result.isNewUser } : {}),
    user: result.user,
  };
}

function signedIn(ctx: ParameterizedContext, result: SignInResult, opts: { refreshInBody: boolean; newUserFlag: boolean }) {
  setRefreshCookie(ctx, result.refreshToken, result.refreshExpiresAt);
  return sessionBody(result, opts);
}

const BLOCKED = { description: 'The account is blocked (`account_blocked`)', schema: ErrorSchema };

const SIGN_IN_ERRORS = {
  401: { description: 'Wrong credentials (`invalid_credentials`)', schema: ErrorSchema },
  403: BLOCKED,
  429: {
    description: 'Too many attempts from this address',
    schema: IpRateLimitErrorSchema,
    headers: { 'Retry-After': 'seconds until the limit resets' },
  },
};

const PASSWORD_SIGN_IN_ERRORS = {
  ...SIGN_IN_ERRORS,
  429: {
    description:
      'Too many attempts from this address (`rate_limit_exceeded`), or password sign-in with this email or phone is locked after 10 failures within 15 minutes, whether or not an account has it (`account_locked`, for 15 minutes; the message says how long)',
    schema: PasswordSignInLimitErrorSchema,
    headers: { 'Retry-After': 'seconds until the limit or the lock ends' },
  },
};

/** Sign-in, sessions and password recovery: public routes (no bearer credential). */
export function registerAuthRoutes(router: Router, services: Pick<ApiServices, 'config' | 'auth'>): void {
  const { auth } = services;
  const tags = ['Authentication'];

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/messenger',
      operationId: 'signInWithMessenger',
      summary: 'Sign in with the Telegram Login Widget (creates the account when new)',
      tags,
      security: 'none',
      body: messengerBody,
      before: [limitPerIp('messenger', SIGN_IN_LIMITS.messenger)],
      responses: {
        200: { description: 'Signed in; the refresh cookie is set', schema: SessionSchema },
        401: {
          description:
            'The signature does not match, the login data is too old, or it was already used (`login_replayed`: each payload signs in once)',
          schema: ErrorSchema,
        },
        403: BLOCKED,
        429: SIGN_IN_ERRORS[429],
        503: { description: 'Messenger sign-in is not configured', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) => signedIn(ctx, await auth.signInWithTelegram(body), { refreshInBody: false, newUserFlag: true }),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/login',
      operationId: 'login',
      summary: 'Sign in with email and password',
      tags,
      security: 'none',
      body: loginBody,
      before: [limitPerIp('login', SIGN_IN_LIMITS.login)],
      responses: { 200: { description: 'Signed in; the refresh cookie is set', schema: SessionSchema }, ...PASSWORD_SIGN_IN_ERRORS },
    },
    async (ctx, { body }) =>
      signedIn(ctx, await auth.loginWithEmail(body.email, body.password), { refreshInBody: true, newUserFlag: false }),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/login-phone',
      operationId: 'loginWithPhone',
      summary: 'Sign in with phone (E.164) and password',
      tags,
      security: 'none',
      body: loginPhoneBody,
      before: [limitPerIp('login-phone', SIGN_IN_LIMITS.loginPhone)],
      responses: { 200: { description: 'Signed in; the refresh cookie is set', schema: SessionSchema }, ...PASSWORD_SIGN_IN_ERRORS },
    },
    async (ctx, { body }) =>
      signedIn(ctx, await auth.loginWithPhone(body.phone, body.password), { refreshInBody: true, newUserFlag: false }),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/idp',
      operationId: 'signInWithIdentityProvider',
      summary: 'Sign in with an identity-provider ID token (creates the account when new)',
      tags,
      security: 'none',
      body: idpBody,
      responses: {
        200: { description: 'Signed in; the refresh cookie is set', schema: SessionSchema },
        401: {
          description:
            'The ID token is invalid, expired or for another audience (`invalid_token`), or was already used (`login_replayed`: each token signs in once)',
          schema: ErrorSchema,
        },
        403: BLOCKED,
        409: { description: 'The verified email belongs to an account linked to another identity', schema: ErrorSchema },
        503: { description: 'Identity-provider sign-in is not configured or the provider is unreachable', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) => {
      if (!body.id_token) {
        if (body.code !== undefined || body.redirect_uri !== undefined) {
          throw new ApiError(
            400,
            'unsupported_sign_in_variant',
            'The code + redirect_uri variant is not supported: send the ID token as id_token',
            {
              field: 'id_token',
            },
          );
        }
        throw new ApiError(400, 'validation_error', 'id_token: is required', { field: 'id_token' });
      }
      return signedIn(ctx, await auth.signInWithIdp(body.id_token), { refreshInBody: true, newUserFlag: true });
    },
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/register',
      operationId: 'register',
      summary: 'Create a Starter account (50 bonus tokens) with email and password, and sign in',
      description:
        'The account is usable at once. A verification link is mailed to the email (`POST /auth/verify-email`); until it is followed the email is unverified (`email_verified: false`), and an identity-provider sign-in with the same verified email takes the account over, revoking the password, sessions and API keys.',
      tags,
      security: 'none',
      body: registerBody,
      status: 201,
      before: [limitPerIp('register', SIGN_IN_LIMITS.register)],
      responses: {
        201: { description: 'Account created and signed in; the refresh cookie is set', schema: SessionSchema },
        409: { description: 'An account with this email exists (`account_exists`)', schema: ErrorSchema },
        429: SIGN_IN_ERRORS[429],
      },
    },
    async (ctx, { body }) =>
      signedIn(ctx, await auth.register(body, `${mailLinkBase(ctx, services.config)}/verify-email`), {
        refreshInBody: true,
        newUserFlag: false,
      }),
  );

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

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/forgot-password',
      operationId: 'forgotPassword',
      summary: 'Mail a one-time password-reset link (valid 1 hour)',
      tags,
      security: 'none',
      body: forgotBody,
      status: 202,
      description:
        'The answer is the same whether or not an account exists for the email. Limited to 3 an hour per address and 3 an hour per email.',
      before: [
        limitPerIp('forgot-password', SIGN_IN_LIMITS.forgotPassword),
        limitPerEmail('forgot-password', SIGN_IN_LIMITS.forgotPasswordPerEmail),
      ],
      responses: {
        202: { description: 'Accepted', schema: StatusMessageSchema },
        429: SIGN_IN_ERRORS[429],
      },
    },
    async (ctx, { body }) => {
      await auth.requestPasswordReset(body.email, `${mailLinkBase(ctx, services.config)}/reset-password`);
      return { status: 'ok', message: 'If an account with this email exists, a password-reset link has been sent to it.' };
    },
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/reset-password',
      operationId: 'resetPassword',
      summary: 'Set a new password with the token from the reset mail; ends every session',
      description:
        'Every refresh session of the account ends. API keys keep working unless `revoke_api_keys` is true (then every key of the account is deleted); the answer says how many were revoked.',
      tags,
      security: 'none',
      body: resetBody,
      before: [limitPerIp('reset-password', SIGN_IN_LIMITS.resetPassword)],
      responses: {
        200: { description: 'Password changed', schema: StatusMessageSchema },
        400: { description: 'Invalid, used or expired token (`invalid_reset_token`), or a weak password', schema: ErrorSchema },
        429: SIGN_IN_ERRORS[429],
      },
    },
    async (_ctx, { body }) => {
      const { apiKeysRevoked } = await auth.resetPassword(body.token, body.password, { revokeApiKeys: body.revoke_api_keys });
      const keys = body.revoke_api_keys ? ` ${apiKeysRevoked} API key${apiKeysRevoked === 1 ? ' was' : 's were'} revoked.` : '';
      return { status: 'ok', message: `Password changed. Sign in with the new password.${keys}` };
    },
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/auth/verify-email',
      operationId: 'verifyEmail',
      summary: 'Confirm the account email with the token from the verification mail',
      description: 'The token works once, for 48 hours, and only while the account still has the email it was sent to.',
      tags,
      security: 'none',
      body: verifyEmailBody,
      before: [limitPerIp('verify-email', SIGN_IN_LIMITS.verifyEmail)],
      responses: {
        200: { description: 'Email verified', schema: StatusMessageSchema },
        400: { description: 'Invalid, used or expired token (`invalid_verification_token`)', schema: ErrorSchema },
        429: SIGN_IN_ERRORS[429],
      },
    },
    async (_ctx, { body }) => {
      await auth.verifyEmail(body.token);
      return { status: 'ok', message: 'Email verified.' };
    },
  );
}
