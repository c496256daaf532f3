import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../api-services';
import { buildOpenApiDocument } from '../openapi/document';
import { OpenApiRegistry } from '../openapi/registry';
import { addRoute } from './route';

/** GET /api/v2/openapi.json: built on first request, once every route is registered. */
export function registerOpenApiRoute(router: Router, registry: OpenApiRegistry, services: Pick<ApiServices, 'config'>): void {
  let document: Record<string, unknown> | undefined;
  addRoute(
    router,
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      tags: ['Meta'],
      security: 'none',
      responses: { 200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
    },
    async (ctx) => {
      document ??= buildOpenApiDocument(registry, {
        title: 'Multi-Model AI Generation API',
        version: '2.0.0',
        description:
          'One HTTP API over many AI models. Authenticate with `Authorization: Bearer <API key or access token>`. ' +
          'Errors are `{"error": "<code>", "message": "<text>"}`.',
        serverUrl: services.config.publicUrl,
      });
      ctx.set('Cache-Control', 'public, max-age=300');
      return document;
    },
  );
}
