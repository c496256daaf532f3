import type { IncomingMessage } from 'node:http';
import type { Middleware, ParameterizedContext } from 'koa';

/** How much of a refused body is read and thrown away before the connection closes anyway. */
export interface DiscardBound {
  bytes: number;
  ms: number;
}

export const DISCARD_BOUND: DiscardBound = { bytes: 64 * 1024 * 1024, ms: 10_000 };

const UNREAD = Symbol('refusedWithUnreadBody');

/**
 * Marks a refusal made while the client is still sending its body (over a cap, nested too deep, declared too
 * large): `answerThenDiscard` answers it, then reads the rest. Returns `err`, to be thrown.
 */
export function refuseUnreadBody<E>(ctx: ParameterizedContext, err: E): E {
  (ctx.state as { [UNREAD]?: boolean })[UNREAD] = true;
  ctx.req.pause();
  return err;
}

/** Reads and drops what the client still sends, until it is done, or past the bound (bytes or time). */
function discardRest(req: IncomingMessage, bound: DiscardBound): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > bound.bytes) done();
    };
    const timer = setTimeout(done, bound.ms);
    req.on('data', onData).once('end', done).once('close', done).once('error', done);
    req.resume();
  });
}

function payloadOf(body: unknown): { bytes: Buffer; type?: string } {
  if (Buffer.isBuffer(body)) return { bytes: body };
  if (typeof body === 'string') return { bytes: Buffer.from(body) };
  return { bytes: Buffer.from(JSON.stringify(body ?? null)), type: 'application/json; charset=utf-8' };
}

/**
 * A refusal sent while the client is still sending must reach it: closing a socket with unread data makes the
 * kernel reset the connection, and the client sees EPIPE or ECONNRESET instead of the answer. So the refusal is
 * written first (with `Connection: close`), then the rest of the body is read and dropped up to `bound`, then the
 * answer ends and the connection closes. Goes between compression and the error handler (it sends the error body
 * that the handler rendered).
 */
export function answerThenDiscard(bound: DiscardBound = DISCARD_BOUND): Middleware {
  return async (ctx, next) => {
    await next();
    const state = ctx.state as { [UNREAD]?: boolean };
    if (!state[UNREAD] || ctx.respond === false || ctx.headerSent) return;
    const res = ctx.res;
    if (ctx.req.complete || res.destroyed) {
      ctx.req.resume();
      return;
    }
    const { bytes, type } = payloadOf(ctx.body);
    if (type && !ctx.response.get('Content-Type')) ctx.set('Content-Type', type);
    ctx.set('Content-Length', String(bytes.length));
    ctx.set('Connection', 'close');
    ctx.respond = false;
    // Koa has set every header on `res` already.
    res.writeHead(ctx.status);
    res.write(bytes);
    await discardRest(ctx.req, bound);
    res.end();
  };
}
