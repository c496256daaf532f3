import Router from '@koa/router';
import { Services } from '../../services';

/** POST /generate, GET /generate/:id, /generate/stream, /stt, /inpaint (owned by the generation engine). */
export function registerGenerationRoutes(_router: Router, _services: Services): void {
  // filled in by the generation engine work
}
