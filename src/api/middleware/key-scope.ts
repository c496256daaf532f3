import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { KeyRestrictedError } from '../../core/accounts/key-limits';
import type { OpenApiRegistry } from '../openapi/registry';
import type { AuthContext } from './auth';

/**
 * Refuses a restricted API key (one with limits) on every route of `router` not documented as open to it
 * (`openToRestrictedKeys`): such a key generates and reads, and manages nothing. Default deny: a route without the
 * mark, documented or not, answers 403 `key_restricted`. Runs after `authenticate`.
 */
export function refuseRestrictedKeys(router: Router, registry: OpenApiRegistry): Middleware {
  let open: Set<string> | undefined;
  const openRoutes = () =>
    (open ??= new Set(registry.operations.filter((o) => o.openToRestrictedKeys).map((o) => `${o.method} ${o.fullPath}`)));
  return async (ctx, next) => {
    const auth = ctx.state.auth as AuthContext | undefined;
    if (auth?.key?.restricted) {
      const method = ctx.method === 'HEAD' ? 'get' : ctx.method.toLowerCase();
      const route = router
        .match(ctx.path, ctx.method)
        .pathAndMethod.filter((layer) => layer.methods.length > 0)
        .at(-1);
      if (!route || !openRoutes().has(`${method} ${String(route.path)}`)) throw new KeyRestrictedError();
    }
    await next();
  };
}
