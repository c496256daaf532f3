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

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/**
 * Base of links mailed to the account's own address (verification): PUBLIC_URL; without it the request's own
 * origin when that is a loopback address (the local setup, so the link opens where the user came in), else the
 * local address. A public Host header is never trusted for a mailed link (link poisoning).
 */
export function mailLinkBase(ctx: ParameterizedContext, config: AppConfig): string {
  if (config.publicUrl) return config.publicUrl;
  return LOOPBACK_HOST.test(ctx.host) ? requestOrigin(ctx) : trustedBaseUrl(config);
}

/**
 * Base of links sent to third parties (password-reset mails): never derived from request headers, which an
 * attacker controls (reset-link poisoning). PUBLIC_URL, else the local address.
 */
export function trustedBaseUrl(config: AppConfig): string {
  return config.publicUrl ?? `http://localhost:${config.port}`;
}
