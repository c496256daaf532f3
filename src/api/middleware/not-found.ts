import type { Middleware } from 'koa';
import { ApiError, renderError } from './errors';

/**
 * Gives bodies to what the routers leave empty (installed before them, checked after): nothing matched is a
 * 404, a known path with another method a 405 (the router has set `Allow`), both in the error shape.
 */
export function notFoundFallback(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 404) throw new ApiError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}`);
    if (ctx.status === 405 || ctx.status === 501) {
      const allow = ctx.response.get('Allow');
      renderError(
        ctx,
        new ApiError(
          ctx.status,
          ctx.status === 405 ? 'method_not_allowed' : 'not_implemented',
          `${ctx.method} is not supported here${allow ? `; use ${allow}` : ''}`,
        ),
      );
    }
  };
}
