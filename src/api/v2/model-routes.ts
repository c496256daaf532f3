import type Router from '@koa/router';
import { z } from 'zod';
import { CATEGORIES, listModels, PLAN_SLUGS, toPublicModel } from '../../core/catalog';
import { quotePrice } from '../../core/payments/price-check';
import type { ApiServices } from '../api-services';
import { AvgTimeSchema, ErrorSchema, ModelListSchema, PriceQuoteSchema } from '../openapi/components';
import { priceCheckBodySchema, priceRequestFromBody } from './generate-body';
import { addRoute } from './route';

const modelsQuery = z.object({
  category: z.enum(CATEGORIES).optional(),
  min_plan: z.enum(PLAN_SLUGS).optional().describe('models available on this plan'),
});
const slugParams = z.object({ slug: z.string().min(1).max(100) });
const unknownModel = { description: 'No model with this slug (`model_not_found`)', schema: ErrorSchema };

/** The model catalog: list, typical processing time, price check. */
export function registerModelRoutes(router: Router, services: Pick<ApiServices, 'usage'>): void {
  const tags = ['Models'];

  addRoute(
    router,
    {
      method: 'get',
      path: '/models',
      operationId: 'listModels',
      summary: 'The model catalog with prices',
      tags,
      security: 'bearer',
      openToRestrictedKeys: true,
      query: modelsQuery,
      responses: { 200: { description: 'Models', schema: ModelListSchema } },
    },
    async (_ctx, { query }) => {
      const models = listModels({ category: query.category, minPlan: query.min_plan }).map(toPublicModel);
      return { models, total: models.length };
    },
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/models/:slug/avg-time',
      operationId: 'getModelAverageTime',
      summary: 'Average processing time of recent completed generations (milliseconds)',
      tags,
      security: 'bearer',
      openToRestrictedKeys: true,
      params: slugParams,
      responses: { 200: { description: 'Average time', schema: AvgTimeSchema }, 404: unknownModel },
    },
    async (_ctx, { params }) => services.usage.modelAverageTime(params.slug),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/models/:slug/calculate-price',
      operationId: 'calculatePrice',
      summary: 'The tokens a generate request with these parameters would cost',
      description:
        'The body is the POST /api/v2/generate body, validated the same way; `model` may be left out, and when given must ' +
        'equal the slug. `tokens` is exactly what that generate request is charged. Text models take `prompt` and ' +
        '`max_tokens` and answer the reservation (the charge settles to real usage, never above it).',
      tags,
      security: 'bearer',
      openToRestrictedKeys: true,
      params: slugParams,
      body: priceCheckBodySchema,
      responses: { 200: { description: 'The price', schema: PriceQuoteSchema }, 404: unknownModel },
    },
    async (_ctx, { params, body }) => quotePrice(params.slug, priceRequestFromBody(body)),
  );
}
