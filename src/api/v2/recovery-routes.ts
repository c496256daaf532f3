import type Router from '@koa/router';
import { z } from 'zod';
import { emailSchema } from '../../core/accounts/identifiers';
import type { ApiServices } from '../api-services';
import { limitPerEmail, limitPerIp, SIGN_IN_LIMITS } from '../middleware/ip-limit';
import { ErrorSchema, StatusMessageSchema } from '../openapi/components';
import { AUTH_TAGS as tags, newPassword, SIGN_IN_ERRORS } from './auth-shared';
import { mailLinkBase } from './public-url';
import { addRoute } from './route';

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

/** Password recovery and email verification: public routes driven by the links the service mails. */
export function registerRecoveryRoutes(router: Router, services: Pick<ApiServices, 'config' | 'auth'>): void {
  const { auth } = services;

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
