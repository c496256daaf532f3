import type { Middleware } from 'koa';
import { ApiError } from './errors';
import { isUnsafeText } from './text-guard';

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    throw new ApiError(400, 'invalid_path', 'The request path has a malformed percent-encoding');
  }
}

/**
 * Refuses, before any route runs, a path with a broken percent-encoding (`/files/%`, `/files/%E0%A4%A`): 400
 * `invalid_path`; and a path or query value with a NUL character or a lone surrogate: 400 `invalid_input`.
 */
export function requestGuards(): Middleware {
  return async (ctx, next) => {
    if (isUnsafeText(decodedPath(ctx.path))) {
      throw new ApiError(400, 'invalid_input', 'The request path must not contain NUL characters or unpaired surrogates', {
        field: 'path',
      });
    }
    for (const [name, value] of Object.entries(ctx.query)) {
      for (const v of [name, ...(Array.isArray(value) ? value : [value ?? ''])]) {
        if (isUnsafeText(v)) {
          throw new ApiError(400, 'invalid_input', `${name}: text must not contain NUL characters or unpaired surrogates`, { field: name });
        }
      }
    }
    await next();
  };
}
