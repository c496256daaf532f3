import type { Middleware } from 'koa';
import { InvalidStorageKeyError } from '../core/media/storage';
import type { Services } from '../services';
import { ApiError } from './middleware/errors';

const PREFIX = '/files/';

/**
 * GET /files/<key>: a generation's result file. The key is unguessable, so the URL works as a capability (it can
 * be handed to a browser, a chat or the next generation). Past the plan's retention it answers 410.
 */
export function resultFiles(services: Services): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const key = decodeURIComponent(ctx.path.slice(PREFIX.length));
    const rows = await services.ds.query<{ result_deleted_at: Date | null; result_mime: string | null }[]>(
      'SELECT result_deleted_at, result_mime FROM generations WHERE result_key = $1 LIMIT 1',
      [key],
    );
    if (rows.length === 0) throw new ApiError(404, 'not_found', 'File not found');
    if (rows[0].result_deleted_at) throw new ApiError(410, 'gone', 'This result was deleted after its retention period');
    let stored;
    try {
      stored = await services.storage.get(key);
    } catch (err) {
      if (err instanceof InvalidStorageKeyError) throw new ApiError(404, 'not_found', 'File not found');
      throw err;
    }
    if (!stored) throw new ApiError(410, 'gone', 'This result is no longer stored');
    ctx.set('Cache-Control', 'private, max-age=86400, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = stored.mime;
    ctx.length = stored.size;
    ctx.body = stored.stream ?? stored.data;
  };
}
