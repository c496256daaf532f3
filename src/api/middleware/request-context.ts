import crypto from 'node:crypto';
import type { Middleware, ParameterizedContext } from 'koa';
import pino from 'pino';
import type { Logger } from '../../logger';
import type { ApiServices } from '../api-services';
import { baseSecurityHeaders } from './security-headers';

const silent = pino({ enabled: false });

/** A caller-supplied id is kept only when it is short and plain (it ends up in logs and headers). */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,64}$/;

const LOG = Symbol('requestLog');

interface LogState {
  [LOG]?: { parent: Logger; child?: Logger; reqId: string };
}

/** The request's logger (carrying its id), made on first use: most requests never log. */
export function requestLog(ctx: ParameterizedContext): Logger {
  const entry = (ctx.state as LogState)[LOG];
  if (!entry) return silent;
  return (entry.child ??= entry.parent.child({ reqId: entry.reqId }));
}

export function requestId(ctx: ParameterizedContext): string {
  return String(ctx.state.requestId ?? '');
}

/** The rate limiter of the app's services (set by requestContext on every request). */
export function limiterOf(ctx: ParameterizedContext): ApiServices['limiter'] {
  const services = ctx.state.services as Pick<ApiServices, 'limiter'> | undefined;
  if (!services) throw new Error('requestContext middleware is not installed');
  return services.limiter;
}

/**
 * First middleware: a request id (returned as X-Request-Id), a child logger carrying it, one JSON log line per
 * request (method, path without the query, status, duration, user; never headers or bodies), and headers every
 * API answer should have.
 */
export function requestContext(services: Pick<ApiServices, 'log' | 'config' | 'limiter'>): Middleware {
  const securityHeaders = Object.entries(baseSecurityHeaders(services.config.publicUrl));
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    const id = SAFE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.requestId = id;
    (ctx.state as LogState)[LOG] = { parent: services.log, reqId: id };
    ctx.state.services = services;
    const res = ctx.res;
    res.setHeader('X-Request-Id', id);
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    // Answers carry tokens and account data: no shared caches.
    res.setHeader('Cache-Control', 'no-store');
    try {
      await next();
    } finally {
      if (services.log.isLevelEnabled(routineRequest(ctx) ? 'debug' : 'info')) logRequest(ctx, started);
    }
  };
}

/** The service's own paths; anything else is the dashboard's (its page and its files). */
const SERVICE_PATHS = /^\/(api|v1|files|telegram|sandbox|metrics)(\/|$)/;

/**
 * Probes (`/health*`, every few seconds from a container's health check) and the dashboard's files (a dozen per
 * page load) that went well are logged at debug level: at info they would bury what happens on the API.
 */
function routineRequest(ctx: ParameterizedContext): boolean {
  if (ctx.status >= 400) return false;
  return ctx.path === '/health' || ctx.path.startsWith('/health/') || !SERVICE_PATHS.test(ctx.path);
}

function logRequest(ctx: ParameterizedContext, started: bigint): void {
  const auth = ctx.state.auth as { userId?: number; via?: string } | undefined;
  requestLog(ctx)[routineRequest(ctx) ? 'debug' : 'info'](
    {
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      ms: Number(process.hrtime.bigint() - started) / 1e6,
      ip: ctx.ip,
      ...(auth?.userId ? { userId: auth.userId, via: auth.via } : {}),
    },
    'request',
  );
}
