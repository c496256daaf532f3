import type Router from '@koa/router';
import { registerAudioRoutes } from './audio';
import { registerImageRoutes } from './images';
import { registerVideoRoutes } from './videos';
import { documentMedia } from './openapi';
import type { MediaServices } from './run';

/** OpenAI's media APIs under /v1 (images, audio, videos): codecs over the core's generations. */
export function registerMediaRoutes(router: Router, services: MediaServices): void {
  documentMedia(router);
  registerImageRoutes(router, services);
  registerAudioRoutes(router, services);
  registerVideoRoutes(router, services);
}
