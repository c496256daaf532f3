import type { Middleware } from 'koa';
import { SANDBOX_CHECKOUT_PATH, SandboxCheckoutPages, type SandboxCheckoutAction } from '../core/payments/sandbox-checkout';
import type { ApiServices } from './api-services';
import { ApiError } from './middleware/errors';
import { answerOtherMethod } from './middleware/not-found';

const PAGE = new RegExp(`^${SANDBOX_CHECKOUT_PATH}/([^/]+)(?:/(approve|cancel))?$`);

/**
 * GET <SANDBOX_CHECKOUT_PATH>/<payment id> and POST …/<id>/approve|cancel: the sandbox carrier's confirmation
 * page, forwarded from the fake on loopback so that it opens from any machine that reaches this service. Only
 * while web payments run on the sandbox; a live shop's buyers pay on YooKassa's own pages.
 */
export function sandboxCheckout(services: Pick<ApiServices, 'payments'>): Middleware {
  return async (ctx, next) => {
    const match = PAGE.exec(ctx.path);
    const pages = match ? services.payments.sandboxCheckout : undefined;
    if (!match || !pages) return next();
    const [, id, button] = match;
    if (!SandboxCheckoutPages.isPaymentId(id!)) throw new ApiError(404, 'not_found', 'No such sandbox payment');
    const method = button ? 'POST' : 'GET';
    if (ctx.method !== method) return answerOtherMethod(ctx, [method]);
    const answer = await pages.forward(id!, (button ?? 'view') as SandboxCheckoutAction);
    ctx.status = answer.status;
    if (answer.location) ctx.set('Location', answer.location);
    // The page has no script, style or picture: the deny-all CSP of every answer fits it (forms are not covered).
    ctx.set('Cache-Control', 'no-store');
    ctx.type = answer.contentType ?? 'text/plain';
    ctx.body = answer.body;
  };
}
