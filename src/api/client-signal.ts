import type { ParameterizedContext } from 'koa';

/**
 * Aborted when the client goes away before its answer is finished: taken before the request starts anything, so a
 * client that leaves while the hold or the rate check runs is seen before the vendor is called. The response's
 * 'close' is what tells (on Node 20 the request's own 'close' fires once its body was read).
 */
export function clientSignal(ctx: ParameterizedContext): AbortSignal {
  const abort = new AbortController();
  const res = ctx.res;
  if (res.destroyed) abort.abort();
  else
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
  return abort.signal;
}
