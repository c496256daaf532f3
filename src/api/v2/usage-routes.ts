import type Router from '@koa/router';
import { z } from 'zod';
import { CATEGORIES } from '../../core/catalog/types';
import { ParamError } from '../../core/catalog/errors';
import { lastDays, USAGE_MAX_DAYS, USAGE_MAX_RANGE_DAYS, UsageRange } from '../../core/stats/daily-usage';
import type { ApiServices } from '../api-services';
import { authOf, ownReadsOf } from '../middleware/auth';
import { components, ErrorSchema } from '../openapi/components';
import { addRoute } from './route';

const countAndTokens = z.object({ count: z.number().int(), tokens: z.number().int() });

const usageGroup = z.object({
  id: z.union([z.string(), z.number().int()]).nullable().describe('model slug, or API key id (null: requests without a key: web and bot)'),
  name: z.string().nullable().describe('the model slug, or the key’s name (null: no key, or a deleted key)'),
  count: z.number().int(),
  tokens: z.number().int(),
});

export const DailyUsageSchema = z.object({
  from: z.string().describe('first UTC day, YYYY-MM-DD'),
  to: z.string().describe('last UTC day, YYYY-MM-DD'),
  group_by: z.enum(['day', 'model', 'key']),
  days: z.number().int(),
  total: countAndTokens,
  groups: z.array(usageGroup).optional().describe('with group_by model or key: the range’s totals per group, largest first'),
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

const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'is not a date');

const usageQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(USAGE_MAX_DAYS)
    .optional()
    .describe(`how many days back, today included (1..${USAGE_MAX_DAYS}, default 30); ignored when from or to is given`),
  from: isoDay.optional().describe('first UTC day (default: 29 days before `to`)'),
  to: isoDay.optional().describe('last UTC day (default: today)'),
  group_by: z.enum(['day', 'model', 'key']).default('day').describe('day (default), model or key: the breakdown in `groups`'),
});

const DAY_MS = 86_400_000;

/** The range the query asks for. @throws ParamError when from is after to or the range is too long */
function rangeOf(query: z.output<typeof usageQuery>): UsageRange {
  if (!query.from && !query.to) return { ...lastDays(query.days ?? 30), groupBy: query.group_by };
  const to = query.to ? new Date(`${query.to}T00:00:00Z`) : lastDays(1).to;
  const from = query.from ? new Date(`${query.from}T00:00:00Z`) : new Date(to.getTime() - 29 * DAY_MS);
  if (from > to) throw new ParamError('from', 'from must not be after to');
  if ((to.getTime() - from.getTime()) / DAY_MS + 1 > USAGE_MAX_RANGE_DAYS) {
    throw new ParamError('from', `the range may span at most ${USAGE_MAX_RANGE_DAYS} days`);
  }
  return { from, to, groupBy: query.group_by };
}

/** GET /user/usage: the daily series behind the dashboard's usage chart, and its breakdown by model or key. */
export function registerUsageRoutes(router: Router, services: Pick<ApiServices, 'usage'>): void {
  addRoute(
    router,
    {
      method: 'get',
      path: '/user/usage',
      operationId: 'getDailyUsage',
      openToRestrictedKeys: true,
      summary: 'Completed generations and tokens spent per day and category over a range, and per model or key (for charts)',
      tags: ['User'],
      security: 'bearer',
      query: usageQuery,
      responses: {
        200: { description: 'The daily series (and the groups)', schema: DailyUsageSchema },
        400: { description: 'A bad date, from after to, or a range over a year (`validation_error`)', schema: ErrorSchema },
      },
    },
    async (ctx, { query }) => services.usage.dailyUsage(authOf(ctx).userId, rangeOf(query), ownReadsOf(ctx)),
  );
}
