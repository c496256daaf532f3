import fs from 'node:fs';
import path from 'node:path';
import { send } from '@koa/send';
import type { Middleware } from 'koa';
import type { AppConfig } from '../../config';
import { answerOtherMethod } from '../middleware/not-found';
import { dashboardCsp } from './csp';

/** Paths that belong to the API and other routes: the dashboard never answers for them. */
const RESERVED = /^\/(api|v1|files|health|metrics|telegram|sandbox)(\/|$)/;
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** The directory `vite build` writes to (dist/web of the project, found from this file in src/ or dist/src/). */
export function webBuildDir(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'web');
}

/**
 * Serves the dashboard: content-hashed `/assets/*` cached for a year (immutable), other build files briefly, and
 * `index.html` for any other GET that wants HTML (the SPA's client routes), never cached so a deploy shows at once.
 */
export function dashboard(config: AppConfig, root = webBuildDir()): Middleware {
  const csp = dashboardCsp(config);
  return async (ctx, next) => {
    if (RESERVED.test(ctx.path)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return answerOtherMethod(ctx, ['GET', 'HEAD']);
    const indexFile = path.join(root, 'index.html');
    if (ctx.path.startsWith('/assets/')) {
      await sendFrom(ctx, root, ctx.path, { maxage: YEAR_MS, immutable: true });
      if (ctx.status === 404 && !ctx.body) return next();
      return;
    }
    if (ctx.path !== '/' && /\.[a-z0-9]+$/i.test(ctx.path)) {
      await sendFrom(ctx, root, ctx.path, { maxage: 3600_000 });
      if (ctx.status === 404 && !ctx.body) return next();
      return;
    }
    if (!ctx.accepts('html') || !fs.existsSync(indexFile)) return next();
    ctx.remove('Cache-Control');
    await send(ctx, 'index.html', { root });
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', csp);
    ctx.set('Referrer-Policy', 'no-referrer');
  };
}

async function sendFrom(
  ctx: Parameters<Middleware>[0],
  root: string,
  file: string,
  options: { maxage: number; immutable?: boolean },
): Promise<void> {
  // requestContext marks every answer no-store; static files set their own caching.
  ctx.remove('Cache-Control');
  try {
    await send(ctx, file, { root, index: false, ...options });
  } catch (err) {
    if ((err as { status?: number }).status === 404) {
      ctx.status = 404;
      ctx.set('Cache-Control', 'no-store');
      return;
    }
    throw err;
  }
}
