import crypto from 'node:crypto';
import type { Middleware } from 'koa';
import type { RateWindow } from '../../core/limits/types';
import { IpRateLimitedError } from './errors';
import { readJsonBody } from './json-body';
import { limiterOf } from './request-context';

/** Sign-in endpoint limits per client address (spec, Limits); counted in the shared store, so per cluster. */
export const SIGN_IN_LIMITS = {
  login: { name: 'minute', seconds: 60, limit: 10 },
  loginPhone: { name: 'minute', seconds: 60, limit: 10 },
  register: { name: 'minute', seconds: 60, limit: 10 },
  forgotPassword: { name: 'hour', seconds: 3600, limit: 3 },
  resetPassword: { name: 'minute', seconds: 60, limit: 10 },
  verifyEmail: { name: 'minute', seconds: 60, limit: 10 },
  messenger: { name: 'minute', seconds: 60, limit: 10 },
  /** Also per email address, whoever asks. */
  forgotPasswordPerEmail: { name: 'hour', seconds: 3600, limit: 3 },
} satisfies Record<string, RateWindow>;

/**
 * Counts the request against `bucket` for the client address (`ctx.ip`: the socket peer, or what a trusted proxy
 * reports, see client-address.ts)
 * and refuses it with 429 and Retry-After beyond the window's limit. Every attempt counts, successful or not.
 */
export function limitPerIp(bucket: string, window: RateWindow): Middleware {
  return async (ctx, next) => {
    const result = await limiterOf(ctx).consumeKey(`ip:${bucket}:${ctx.ip}`, window);
    if (!result.allowed) throw new IpRateLimitedError(result.retryAfter);
    await next();
  };
}

/**
 * Counts the request against `bucket` for the email address in the body (whoever sends it), so spreading the
 * requests over many addresses does not help. A body without a usable email is left to validation.
 */
export function limitPerEmail(bucket: string, window: RateWindow): Middleware {
  return async (ctx, next) => {
    const body = (await readJsonBody(ctx)) as { email?: unknown } | null;
    const email = typeof body?.email === 'string' ? body.email.trim().toLowerCase() : '';
    if (email.length > 0 && email.length <= 320) {
      const result = await limiterOf(ctx).consumeKey(`email:${bucket}:${crypto.createHash('sha256').update(email).digest('hex')}`, window);
      if (!result.allowed) {
        throw new IpRateLimitedError(result.retryAfter, 'Too many requests for this email address; try again later');
      }
    }
    await next();
  };
}
