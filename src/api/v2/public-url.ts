import type { ParameterizedContext } from 'koa';
import type { AppConfig } from '../../config';

/** Base of links the service hands out (result files, reset links): PUBLIC_URL, else the request's origin. */
export function publicBaseUrl(ctx: ParameterizedContext, config: AppConfig): string {
  return config.publicUrl ?? requestOrigin(ctx);
}

/** The origin this request was addressed to (Koa 3's `ctx.origin` is the Origin header, not this). */
export function requestOrigin(ctx: ParameterizedContext): string {
  return `${ctx.protocol}://${ctx.host}`;
}

/**
 * Base of links sent to third parties (password-reset mails): never derived from request headers, which an
 * attacker controls (reset-link poisoning). PUBLIC_URL, else the local address.
 */
export function trustedBaseUrl(config: AppConfig): string {
  return config.publicUrl ?? `http://localhost:${config.port}`;
}
