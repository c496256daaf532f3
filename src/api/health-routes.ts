import Router from '@koa/router';
import type { Middleware } from 'koa';
import { ApiError } from './middleware/errors';
import { refuseUnreadBody } from './middleware/unread-body';
import type { ApiServices } from './api-services';

/**
 * Probes. `/health`: the database answers (as before). `/health/live`: the process answers. `/health/ready`: the
 * phase is `ready` and every dependency answers; 503 while starting, draining, or when a dependency is down. A down
 * Redis leaves it 200 with `status: "degraded"` (the counters run on PostgreSQL).
 */
export function healthRoutes(services: Pick<ApiServices, 'readiness' | 'usage'>): Router {
  const router = new Router();
  router.get('/health', async (ctx) => {
    await services.usage.ping();
    ctx.body = { status: 'ok' };
  });
  router.get('/health/live', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/health/ready', async (ctx) => {
    const report = await services.readiness.report();
    ctx.status = report.ready ? 200 : 503;
    if (!report.ready) ctx.set('Retry-After', '5');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: report.status, checks: report.checks };
  });
  return router;
}

/** While the instance drains (SIGTERM), new requests other than the probes are refused with 503 and Retry-After. */
export function refuseWhileDraining(services: Pick<ApiServices, 'readiness'>): Middleware {
  return async (ctx, next) => {
    if (services.readiness.phase !== 'draining' || ctx.path.startsWith('/health')) return next();
    ctx.set('Connection', 'close');
    // A client still sending its body gets the 503 first, not a reset.
    throw refuseUnreadBody(
      ctx,
      new ApiError(503, 'service_unavailable', 'This instance is shutting down; retry shortly', {}, { 'Retry-After': '5' }),
    );
  };
}
