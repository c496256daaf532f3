import type { Middleware } from 'koa';
import { AdminRequiredError } from '../../core/admin/errors';
import { authOf } from './auth';

/**
 * The operator's console: an admin's web session only. An API key (even an admin's) or another account: 403
 * `admin_required`. Runs after `authenticate`, which has already refused a blocked account (`account_blocked`).
 */
export function adminOnly(): Middleware {
  return async (ctx, next) => {
    const auth = authOf(ctx);
    if (auth.via !== 'session' || !auth.user.isAdmin) throw new AdminRequiredError();
    await next();
  };
}
