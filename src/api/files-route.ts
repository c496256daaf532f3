import type { Middleware } from 'koa';
import { matchesEtag, parseRangeHeader } from './http-range';
import type { ApiServices } from './api-services';
import { ApiError } from './middleware/errors';
import { answerOtherMethod } from './middleware/not-found';
import { isUnsafeText } from './middleware/text-guard';

const PREFIX = '/files/';

/**
 * GET /files/<key>: a generation's result file. The key is unguessable, so the URL works as a capability (it can
 * be handed to a browser, a chat or the next generation). Past the plan's retention it answers 410. Any instance
 * serves any result (with STORAGE=s3), with `Range` (206) so players can seek, and `ETag` / `If-None-Match` (304).
 */
/** The storage key of a /files/ path, or null when it cannot be one (bad percent-encoding, control characters). */
function storageKeyOf(encoded: string): string | null {
  let key: string;
  try {
    key = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  return key.length > 0 && key.length <= 512 && !hasControlCharacter(key) && !isUnsafeText(key) ? key : null;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** A file name for Content-Disposition from `?download=`: letters, digits, dots, dashes and underscores only. */
function downloadName(value: unknown): string | null {
  if (typeof value !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(value)) return null;
  return value;
}

export function resultFiles(services: Pick<ApiServices, 'resultFiles'>): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return answerOtherMethod(ctx, ['GET', 'HEAD']);
    const key = storageKeyOf(ctx.path.slice(PREFIX.length));
    if (key === null) throw new ApiError(404, 'not_found', 'File not found');
    // A malformed key or a range beyond the file is a core error: the door's table answers 404 or 416.
    const file = await services.resultFiles.open(key, parseRangeHeader(ctx.get('Range')));
    if (file.state === 'missing') throw new ApiError(404, 'not_found', 'File not found');
    if (file.state === 'deleted') throw new ApiError(410, 'gone', 'This result was deleted after its retention period');
    if (file.state === 'removed') throw new ApiError(410, 'gone', 'This result was deleted by its owner');
    if (file.state === 'gone') throw new ApiError(410, 'gone', 'This result is no longer stored');
    const stored = file.object;
    ctx.set('Cache-Control', 'private, max-age=86400, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Accept-Ranges', 'bytes');
    if (stored.etag) ctx.set('ETag', stored.etag);
    // `?download=<name>` saves the file instead of showing it, whatever origin the page that links it is on.
    const saveAs = downloadName(ctx.query.download);
    if (saveAs) ctx.set('Content-Disposition', `attachment; filename="${saveAs}"`);
    if (matchesEtag(ctx.get('If-None-Match'), stored.etag)) {
      stored.stream?.destroy();
      ctx.status = 304;
      return;
    }
    ctx.type = stored.mime;
    if (stored.range) {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${stored.range.start}-${stored.range.end}/${stored.size}`);
      ctx.length = stored.range.end - stored.range.start + 1;
    } else {
      ctx.length = stored.size;
    }
    ctx.body = stored.stream ?? stored.data;
  };
}
