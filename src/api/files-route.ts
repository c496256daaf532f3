import type { Middleware } from 'koa';
import type { Services } from '../services';
import { ApiError } from './middleware/errors';

const PREFIX = '/files/';

/**
 * GET /files/<key>: a generation's result file. The key is unguessable, so the URL works as a capability (it can
 * be handed to a browser, a chat or the next generation). Past the plan's retention it answers 410.
 */
export function resultFiles(services: Pick<Services, 'resultFiles'>): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const key = decodeURIComponent(ctx.path.slice(PREFIX.length));
    // A malformed key is an InvalidStorageKeyError: the error table answers 404.
    const file = await services.resultFiles.open(key);
    if (file.state === 'missing') throw new ApiError(404, 'not_found', 'File not found');
    if (file.state === 'deleted') throw new ApiError(410, 'gone', 'This result was deleted after its retention period');
    if (file.state === 'gone') throw new ApiError(410, 'gone', 'This result is no longer stored');
    const stored = file.object;
    ctx.set('Cache-Control', 'private, max-age=86400, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = stored.mime;
    ctx.length = stored.size;
    ctx.body = stored.stream ?? stored.data;
  };
}
