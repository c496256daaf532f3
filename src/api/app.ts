import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import type { ApiServices } from './api-services';
import { resultFiles } from './files-route';
import { healthRoutes, refuseWhileDraining } from './health-routes';
import { createMetrics } from './metrics';
import { clientAddress } from './middleware/client-address';
import { compression } from './middleware/compression';
import { errorHandler } from './middleware/errors';
import { recordRefusals } from './middleware/refusals';
import { answerThenDiscard } from './middleware/unread-body';
import { notFoundFallback } from './middleware/not-found';
import { requestContext } from './middleware/request-context';
import { requestGuards } from './middleware/request-guards';
import { createV1Router } from './v1/router';
import { createV2Routers } from './v2/router';
import { sandboxCheckout } from './sandbox-checkout-route';
import { dashboard } from './web/static';

export interface ApiAppOptions {
  /** POST /telegram/webhook handler (BOT_MODE=webhook; it checks X-Telegram-Bot-Api-Secret-Token itself). */
  telegramWebhook?: Middleware;
}

export function createApiApp(services: ApiServices, options: ApiAppOptions = {}): Koa {
  // X-Forwarded-* are believed only from the proxies named in TRUST_PROXY; ctx.ip is set by clientAddress.
  const app = new Koa({ proxy: services.config.trustProxy.enabled });

  const metrics = createMetrics({ token: services.config.metrics.token });
  app.use(clientAddress(services.config.trustProxy));
  app.use(metrics.middleware);
  app.use(requestContext(services));
  app.use(compression());
  // A refusal sent while the body still arrives: answered, then the rest read and dropped (bounded), then closed.
  app.use(answerThenDiscard());
  app.use(errorHandler(recordRefusals(services)));
  app.use(notFoundFallback());
  app.use(requestGuards());

  const v2 = createV2Routers(services);
  // /v1 (the busiest surface) comes first: a request it answers skips the other surfaces' middleware and routes,
  // none of which can answer there, and each of which would cost it a look at its path.
  const v1 = createV1Router(services, v2.registry);
  app.use(v1.routes());
  app.use(v1.allowedMethods());

  // The web dashboard at `/` (its static build and the SPA fallback); it never answers for the API's paths.
  app.use(dashboard(services.config));

  app.use(refuseWhileDraining(services));
  app.use(healthRoutes(services).routes());
  if (options.telegramWebhook) {
    const telegram = new Router();
    telegram.post('/telegram/webhook', options.telegramWebhook);
    app.use(telegram.routes());
    app.use(telegram.allowedMethods());
  }
  app.use(resultFiles(services));
  app.use(sandboxCheckout(services));
  app.use(metrics.endpoint);

  for (const router of [v2.publicRouter, v2.protectedRouter, v2.adminRouter]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
