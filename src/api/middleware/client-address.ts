import type { Middleware } from 'koa';
import type { TrustedProxies } from '../../core/net/trusted-proxies';

/**
 * Sets `ctx.ip` to the real client: the socket peer, or, when that peer is a trusted proxy (TRUST_PROXY), the
 * address the proxies report in X-Forwarded-For. Per-IP limits and logs read `ctx.ip`.
 */
export function clientAddress(trusted: TrustedProxies): Middleware {
  return async (ctx, next) => {
    ctx.request.ip = trusted.clientAddress(ctx.req.socket.remoteAddress ?? '', ctx.get('X-Forwarded-For') || undefined);
    await next();
  };
}
