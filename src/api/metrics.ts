import crypto from 'node:crypto';
import http from 'node:http';
import Koa, { type Middleware } from 'koa';
import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from '../core/ops/metrics';
import { answerOtherMethod } from './middleware/not-found';

let httpCounters: { requests: Counter<'surface' | 'status'>; duration: Histogram<'surface'> } | undefined;

/** HTTP metrics are registered once per process, however many apps it builds (tests build several). */
function httpMetrics() {
  httpCounters ??= {
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by surface and status',
      labelNames: ['surface', 'status'] as const,
      registers: [metricsRegistry],
    }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to the response head, by surface',
      labelNames: ['surface'] as const,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers: [metricsRegistry],
    }),
  };
  return httpCounters;
}

/** Prometheus metrics: process defaults, request counts and durations, and the operator metrics of src/core/ops/metrics.ts. */
export function createMetrics(access: { token?: string } = {}): { middleware: Middleware; endpoint: Middleware } {
  const { requests, duration } = httpMetrics();
  const surfaceOf = (path: string) =>
    path.startsWith('/v1/') ? 'v1' : path.startsWith('/api/v2/') ? 'v2' : path.startsWith('/files/') ? 'files' : 'other';
  return {
    middleware: async (ctx, next) => {
      const start = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const surface = surfaceOf(ctx.path);
        requests.inc({ surface, status: String(ctx.status) });
        duration.observe({ surface }, Number(process.hrtime.bigint() - start) / 1e9);
      }
    },
    endpoint: metricsEndpoint({ token: access.token, public: true }),
  };
}

function sameSecret(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/**
 * GET /metrics. On the public port it exists only with METRICS_TOKEN and then needs `Authorization: Bearer
 * <token>` (401 otherwise); without a token it is not served there at all (404). On the METRICS_PORT listener
 * (`public: false`) it is served as is, or with the token when one is set.
 */
export function metricsEndpoint(options: { token?: string; public: boolean }): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/metrics' || (options.public && !options.token)) return next();
    if (ctx.method !== 'GET') return answerOtherMethod(ctx, ['GET']);
    if (options.token) {
      const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(ctx.get('Authorization'))?.[1];
      if (!given || !sameSecret(given, options.token)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        ctx.body = { error: 'not_authenticated', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' };
        return;
      }
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metricsRegistry.contentType;
    ctx.body = await metricsRegistry.metrics();
  };
}

/** The small listener of METRICS_PORT: GET /metrics only (everything else 404). */
export function createMetricsServer(options: { token?: string }): http.Server {
  const app = new Koa();
  app.use(metricsEndpoint({ token: options.token, public: false }));
  return http.createServer(app.callback());
}
