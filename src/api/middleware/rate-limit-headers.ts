import type { ParameterizedContext } from 'koa';
import type { RateDecision } from '../../core/limits/rate-limiter';

/**
 * What an unlimited window (limit 0, Elite) reports as remaining: a large number rather than 0, so a client
 * that waits when "remaining" reaches 0 never waits needlessly. Its limit header stays 0 ("unlimited", as in
 * the User object's `rate_limit_hourly`).
 */
export const UNLIMITED_REMAINING = 2_147_483_647;

const remaining = (limit: number, left: number) => (limit === 0 ? UNLIMITED_REMAINING : left);

/** The X-RateLimit-* headers of a decision (reads peek; model-running requests count first). */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const hour = remaining(d.limitHour, d.remainingHour);
  const day = remaining(d.limitDay, d.remainingDay);
  return {
    'X-RateLimit-Limit-Hour': String(d.limitHour),
    'X-RateLimit-Remaining-Hour': String(hour),
    'X-RateLimit-Limit-Day': String(d.limitDay),
    'X-RateLimit-Remaining-Day': String(day),
    'X-RateLimit-Reset-Hour': String(d.resetHour),
    'X-RateLimit-Remaining': String(Math.min(hour, day)),
  };
}

export function applyRateLimitHeaders(ctx: ParameterizedContext, decision: RateDecision): void {
  ctx.set(rateLimitHeaders(decision));
}
