import type { Middleware } from 'koa';
import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from '../core/ops/metrics';

let http: { requests: Counter<'surface' | 'status'>; duration: Histogram<'surface'> } | undefined;

/** HTTP metrics are registered once per process, however many apps it builds (tests build several). */
function httpMetrics() {
  http ??= {
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
  return http;
}

/** Prometheus metrics: process defaults, request counts and durations, and the operator metrics of src/core/ops/metrics.ts. */
export function createMetrics(): { middleware: Middleware; endpoint: Middleware } {
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
    endpoint: async (ctx, next) => {
      if (ctx.path !== '/metrics' || ctx.method !== 'GET') return next();
      ctx.type = metricsRegistry.contentType;
      ctx.body = await metricsRegistry.metrics();
    },
  };
}
