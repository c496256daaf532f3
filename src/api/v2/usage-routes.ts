import type Router from '@koa/router';
import { z } from 'zod';
import { CATEGORIES } from '../../core/catalog/types';
import { USAGE_MAX_DAYS } from '../../core/stats/daily-usage';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import { components } from '../openapi/components';
import { addRoute } from './route';

const countAndTokens = z.object({ count: z.number().int(), tokens: z.number().int() });

export const DailyUsageSchema = z.object({
  days: z.number().int(),
  series: z.array(
    z.object({
      date: z.string().describe('UTC day, YYYY-MM-DD'),
      tokens: z.number().int(),
      count: z.number().int(),
      categories: z.object(
        Object.fromEntries(CATEGORIES.map((c) => [c, countAndTokens])) as Record<(typeof CATEGORIES)[number], typeof countAndTokens>,
      ),
    }),
  ),
});
components.add(DailyUsageSchema, {
  id: 'DailyUsage',
  description: 'Completed generations and tokens per UTC day and category, oldest first, every day present',
});

const usageQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(USAGE_MAX_DAYS)
    .default(30)
    .describe(`how many days back, today included (1..${USAGE_MAX_DAYS}, default 30)`),
});

/** GET /user/usage: the daily series behind the dashboard's usage chart. */
export function registerUsageRoutes(router: Router, services: Pick<ApiServices, 'usage'>): void {
  addRoute(
    router,
    {
      method: 'get',
      path: '/user/usage',
      operationId: 'getDailyUsage',
      summary: 'Completed generations and tokens spent per day and category (for charts)',
      tags: ['User'],
      security: 'bearer',
      query: usageQuery,
      responses: { 200: { description: 'The daily series', schema: DailyUsageSchema } },
    },
    async (ctx, { query }) => services.usage.dailyUsage(authOf(ctx).userId, query.days),
  );
}
