import zlib from 'node:zlib';
import compress from 'koa-compress';
import type { Middleware } from 'koa';

/** Answers smaller than this go out as they are: compressing them saves too little to pay for the work. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

const COMPRESSIBLE =
  /^(application\/(json|javascript|xml|manifest\+json|problem\+json)|text\/(html|css|javascript|plain|xml|csv)|image\/svg\+xml)\b/i;

/**
 * br (or gzip) for the dashboard's assets and for JSON answers over 1 KB, when the client accepts it. Never for
 * event streams (they write to the socket themselves and must not be buffered) or already compressed media.
 * Brotli runs at quality 5: most of its gain, at a cost per answer close to gzip's.
 */
export function compression(): Middleware {
  return compress({
    threshold: COMPRESS_THRESHOLD_BYTES,
    filter: (type) => COMPRESSIBLE.test(type),
    br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } },
    gzip: { level: 6 },
    deflate: false,
  });
}
