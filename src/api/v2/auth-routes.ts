import type Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import type { SignInResult } from '../../core/accounts/auth-service';
import { emailSchema, phoneSchema } from '../../core/accounts/identifiers';
import type { ApiServices } from '../api-services';
import { ErrorSchema, SessionSchema } from '../openapi/components';
import { AUTH_TAGS as tags, BLOCKED, newPassword, password, PASSWORD_SIGN_IN_ERRORS, SIGN_IN_ERRORS } from './auth-shared';
import { limitPerIp, SIGN_IN_LIMITS } from '../middleware/ip-limit';
import { ApiError } from '../middleware/errors';
import { setRefreshCookie } from './refresh-cookie';
import { mailLinkBase } from './public-url';
import { addRoute } from './route';

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
const referralCode = z
  .string()
  .trim()
  .max(60)
  .optional()
  .describe(
    'an invitation code (the `ref` of an invitation link): the new account joins its owner’s referrals; an unknown code is ignored',
  );
const registerBody = z.strictObject({
  email: emailSchema,
  password: newPassword,
  name: z.string().trim().min(1).max(100).optional().describe('display name (default: the part of the email before @)'),
  referral_code: referralCode,
});
const webAppBody = z.strictObject({
  init_data: z
    .string()
    .min(1, 'is required')
    .max(8192)
    .describe('`Telegram.WebApp.initData` exactly as Telegram handed it to the Mini App (a query string)'),
});

function sessionBody(result: SignInResult, opts: { refreshInBody: boolean; newUserFlag: boolean }) {
  return {
    access_token: result.accessToken,
    token_type: 'bearer' as const,
    expires_in: result.expiresIn,
    ...(opts.refreshInBody ? { refresh_token: result.refreshToken } : {}),
    ...(opts.newUserFlag ? { is_new_user: result.isNewUser } : {}),
    user: {
      id: result.user.id,
      name: result.user.name,
      email: result.user.email,
      plan: result.user.plan,
      token_balance: result.user.tokenBalance,
      is_admin: result.user.isAdmin,
    },
  };
}

function signedIn(ctx: ParameterizedContext, result: SignInResult, opts: { refreshInBody: boolean; newUserFlag: boolean }) {
  setRefreshCookie(ctx, result.refreshToken, result.refreshExpiresAt);
  return sessionBody(result, opts);
}

/** Sign-in and registration: public routes (no bearer credential) that start a session. */
export function registerAuthRoutes(router: Router, services: Pick<ApiServices, 'config' | 'auth' | 'referrals'>): void {
  const { auth, referrals } = services;

  /** A new account that came with an invitation code joins its owner's referrals; nothing else changes. */
  const joinReferrals = async (result: SignInResult, code: string | undefined) => {
    if (result.isNewUser && code) await referrals.join(result.user.id, code, { newAccount: true });
  };

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
      path: '/auth/telegram-webapp',
      operationId: 'signInWithTelegramWebApp',
      summary: 'Sign in from the Telegram Mini App with its initData (creates the account when new)',
      description:
        'The dashboard opened from the bot’s menu button inside Telegram signs in with `Telegram.WebApp.initData`, on the same account as the bot (the Telegram user id). The signature is checked as Telegram documents for Mini Apps (HMAC-SHA-256 with the key HMAC-SHA-256("WebAppData", bot token)) and `auth_date` must be at most a day old. A `start_param` of `ref_<code>` ties a new account to the inviter.',
      tags,
      security: 'none',
      body: webAppBody,
      before: [limitPerIp('telegram-webapp', SIGN_IN_LIMITS.messenger)],
      responses: {
        200: { description: 'Signed in; the refresh cookie is set', schema: SessionSchema },
        401: {
          description: 'The signature does not match, the data names no user, or `auth_date` is older than a day (`invalid_credentials`)',
          schema: ErrorSchema,
        },
        403: BLOCKED,
        429: SIGN_IN_ERRORS[429],
        503: { description: 'Messenger sign-in is not configured (BOT_TOKEN)', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) => {
      const result = await auth.signInWithTelegramWebApp(body.init_data);
      const invitation = /^ref_(.+)$/.exec(result.startParam ?? '');
      await joinReferrals(result, invitation?.[1]);
      return signedIn(ctx, result, { refreshInBody: true, newUserFlag: true });
    },
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
    async (ctx, { body }) => {
      const { referral_code: code, ...account } = body;
      const result = await auth.register(account, `${mailLinkBase(ctx, services.config)}/verify-email`);
      await joinReferrals(result, code);
      return signedIn(ctx, result, { refreshInBody: true, newUserFlag: false });
    },
  );
}
