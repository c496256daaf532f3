import Router from '@koa/router';
import { Services } from '../../services';

/** The chat-completions-compatible surface under /v1 (own error shape). */
export function createV1Router(_services: Services): Router {
  return new Router({ prefix: '/v1' });
}
