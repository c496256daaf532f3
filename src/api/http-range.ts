import type { ByteRange } from '../core/media/storage';

/**
 * One `Range: bytes=...` range (players and download managers ask for one). Anything else (several ranges,
 * another unit, garbage) is ignored, and the whole file is sent, as RFC 9110 allows.
 */
export function parseRangeHeader(value: string | undefined): ByteRange | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec((value ?? '').trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') return { suffix: Number(m[2]) };
  return { start: Number(m[1]), end: m[2] === '' ? undefined : Number(m[2]) };
}

/** `If-None-Match` holds the current validator (or `*`). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string | undefined): boolean {
  if (!ifNoneMatch || !etag) return false;
  const weakless = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || weakless(t) === weakless(etag));
}
