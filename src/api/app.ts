import Router from '@koa/router';
import Koa from 'koa';
import { Services } from '../services';

export function createApiApp(services: Services): Koa {
  const app = new Koa();
  app.proxy = true;
  const router = new Router();
  router.get('/health', async (ctx) => {
    await services.ds.query('SELECT 1');
    ctx.body = { status: 'ok' };
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
