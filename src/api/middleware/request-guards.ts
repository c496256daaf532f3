import type { Middleware } from 'koa';
import { ApiError } from './errors';
import { isUnsafeText } from './text-guard';
import { percentDecode } from './utf8';

function notUtf8(field: string): ApiError {
  return new ApiError(400, 'invalid_input', `${field}: percent-encoded bytes must be valid UTF-8`, { field });
}

function unsafe(field: string): ApiError {
  return new ApiError(400, 'invalid_input', `${field}: text must not contain NUL characters or unpaired surrogates`, { field });
}

function checkPath(path: string): void {
  const decoded = percentDecode(path, { strictEscapes: true });
  if ('error' in decoded) {
    if (decoded.error === 'not_utf8') throw notUtf8('path');
    throw new ApiError(400, 'invalid_path', 'The request path has a malformed percent-encoding');
  }
  if (isUnsafeText(decoded.text)) {
    throw new ApiError(400, 'invalid_input', 'The request path must not contain NUL characters or unpaired surrogates', {
      field: 'path',
    });
  }
}

/** Every key and value of the query string, decoded strictly (the parser behind `ctx.query` substitutes U+FFFD). */
function checkQuery(querystring: string): void {
  if (querystring === '') return;
  for (const pair of querystring.split('&')) {
    const at = pair.indexOf('=');
    const key = percentDecode(at < 0 ? pair : pair.slice(0, at), { plusIsSpace: true });
    const name = 'text' in key ? key.text : 'query';
    if ('error' in key) throw notUtf8(name);
    const value = percentDecode(at < 0 ? '' : pair.slice(at + 1), { plusIsSpace: true });
    if ('error' in value) throw notUtf8(name);
    if (isUnsafeText(name)) throw unsafe('query');
    if (isUnsafeText(value.text)) throw unsafe(name);
  }
}

/**
 * Refuses, before any route runs, a path with a broken percent-encoding (`/files/%`, `/files/%E0%A4%A`): 400
 * `invalid_path`; and a path or query key or value whose escaped bytes are not UTF-8 (`%ED%A0%80`), or that holds a
 * NUL character or a lone surrogate: 400 `invalid_input`. Nothing is replaced by U+FFFD.
 */
export function requestGuards(): Middleware {
  return async (ctx, next) => {
    checkPath(ctx.path);
    checkQuery(ctx.querystring);
    await next();
  };
}
