import type { Middleware, ParameterizedContext } from 'koa';
import { ApiError, renderError } from './errors';

/**
 * Gives bodies to what the routers leave empty (installed before them, checked after): nothing matched is a
 * 404, a known path with another method a 405 with `Allow`, both in the error shape of the surface.
 *
 * The routers answer 501 for a method they do not implement at all (TRACE, QUERY, PROPFIND...). That is no
 * server fault: on a known path it is a 405 like any other wrong method, and on an unknown path a 404.
 */
export function notFoundFallback(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 501) {
      ctx.status = ctx.response.get('Allow') ? 405 : 404;
      if (ctx.status === 404) ctx.remove('Allow');
    }
    if (ctx.status === 404) throw new ApiError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}`);
    if (ctx.status === 405) {
      const allow = ctx.response.get('Allow');
      renderError(ctx, new ApiError(405, 'method_not_allowed', `${ctx.method} is not supported here${allow ? `; use ${allow}` : ''}`));
    }
  };
}

/**
 * For the hand-written routes (result files, the dashboard, /metrics): a request to a path they serve, with a
 * method they do not, gets what the routers give theirs: OPTIONS the `Allow` list, anything else a 405 (its
 * body comes from notFoundFallback).
 */
export function answerOtherMethod(ctx: ParameterizedContext, allowed: readonly string[]): void {
  ctx.set('Allow', allowed.join(', '));
  if (ctx.method === 'OPTIONS') {
    ctx.status = 200;
    ctx.body = '';
  } else {
    ctx.status = 405;
  }
}
