import type { Middleware } from 'koa';
import { InvalidStorageKeyError } from '../core/media/storage';
import type { Services } from '../services';
import { ApiError } from './middleware/errors';
import { isUnsafeText } from './middleware/text-guard';

const PREFIX = '/files/';

/**
 * GET /files/<key>: a generation's result file. The key is unguessable, so the URL works as a capability (it can
 * be handed to a browser, a chat or the next generation). Past the plan's retention it answers 410.
 */
/** The storage key of a /files/ path, or null when it cannot be one (bad percent-encoding, control characters). */
function storageKeyOf(encoded: string): string | null {
  let key: string;
  try {
    key = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  return key.length > 0 && key.length <= 512 && !/[\u0000-\u001f\u007f]/.test(key) && !isUnsafeText(key) ? key : null;
}

export function resultFiles(services: Services): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const key = storageKeyOf(ctx.path.slice(PREFIX.length));
    if (key === null) throw new ApiError(404, 'not_found', 'File not found');
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
