import type { Middleware } from 'koa';
import type { RateWindow } from '../../core/limits/types';
import { IpRateLimitedError } from './errors';
import { servicesOf } from './request-context';

/** Sign-in endpoint limits per client address (spec, Limits); counted in the shared store, so per cluster. */
export const SIGN_IN_LIMITS = {
  login: { name: 'minute', seconds: 60, limit: 10 },
  loginPhone: { name: 'minute', seconds: 60, limit: 10 },
  register: { name: 'minute', seconds: 60, limit: 10 },
  forgotPassword: { name: 'hour', seconds: 3600, limit: 3 },
  resetPassword: { name: 'minute', seconds: 60, limit: 10 },
} satisfies Record<string, RateWindow>;

/**
 * Counts the request against `bucket` for the client address (`ctx.ip`: the proxy-reported address, see app.ts)
 * and refuses it with 429 and Retry-After beyond the window's limit. Every attempt counts, successful or not.
 */
export function limitPerIp(bucket: string, window: RateWindow): Middleware {
  return async (ctx, next) => {
    const result = await servicesOf(ctx).limiter.consumeKey(`ip:${bucket}:${ctx.ip}`, window);
    if (!result.allowed) throw new IpRateLimitedError(result.retryAfter);
    await next();
  };
}
