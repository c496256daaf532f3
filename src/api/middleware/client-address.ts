import type { Socket } from 'node:net';
import type { Middleware } from 'koa';
import type { TrustedProxies } from '../../core/net/trusted-proxies';

/**
 * Sets `ctx.ip` to the real client: the socket peer, or, when that peer is a trusted proxy (TRUST_PROXY), the
 * address the proxies report in X-Forwarded-For. Per-IP limits and logs read `ctx.ip`.
 */
export function clientAddress(trusted: TrustedProxies): Middleware {
  // A keep-alive connection carries many requests from one peer: its address is normalised once.
  const peers = new WeakMap<Socket, string>();
  return async (ctx, next) => {
    const socket = ctx.req.socket;
    const forwardedFor = ctx.get('X-Forwarded-For');
    if (forwardedFor) {
      ctx.request.ip = trusted.clientAddress(socket.remoteAddress ?? '', forwardedFor);
    } else {
      let peer = peers.get(socket);
      if (peer === undefined) {
        peer = trusted.clientAddress(socket.remoteAddress ?? '', undefined);
        peers.set(socket, peer);
      }
      ctx.request.ip = peer;
    }
    await next();
  };
}
