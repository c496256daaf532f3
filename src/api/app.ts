import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { Services } from '../services';
import { resultFiles } from './files-route';
import { createMetrics } from './metrics';
import { errorHandler } from './middleware/errors';
import { notFoundFallback } from './middleware/not-found';
import { requestContext } from './middleware/request-context';
import { createV1Router } from './v1/router';
import { createV2Routers } from './v2/router';
import { dashboard } from './web/static';

export interface ApiAppOptions {
  /** POST /telegram/webhook handler (BOT_MODE=webhook; it checks X-Telegram-Bot-Api-Secret-Token itself). */
  telegramWebhook?: Middleware;
}

export function createApiApp(services: Services, options: ApiAppOptions = {}): Koa {
  // Behind one reverse proxy: ctx.ip is the address that proxy saw (the last X-Forwarded-For entry), which a
  // client cannot forge, unlike the first entry. The per-IP sign-in limits rely on it.
  const app = new Koa({ proxy: true, maxIpsCount: 1 });

  const metrics = createMetrics();
  app.use(metrics.middleware);
  app.use(requestContext(services));
  app.use(errorHandler());
  app.use(notFoundFallback());
  // The web dashboard at `/` (its static build and the SPA fallback); it never answers for the API's paths.
  app.use(dashboard(services.config));

  const health = new Router();
  health.get('/health', async (ctx) => {
    await services.ds.query('SELECT 1');
    ctx.body = { status: 'ok' };
  });
  app.use(health.routes());
  if (options.telegramWebhook) {
    const telegram = new Router();
    telegram.post('/telegram/webhook', options.telegramWebhook);
    app.use(telegram.routes());
    app.use(telegram.allowedMethods());
  }
  app.use(resultFiles(services));
  app.use(metrics.endpoint);

  const v2 = createV2Routers(services);
  for (const router of [v2.publicRouter, v2.protectedRouter]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }

  const v1 = createV1Router(services);
  app.use(v1.routes());
  app.use(v1.allowedMethods());
  return app;
}
