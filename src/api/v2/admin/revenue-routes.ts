import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../../api-services';
import { RevenueReportSchema } from '../../openapi/admin-money-schemas';
import { ErrorSchema } from '../../openapi/components';
import { revenueView } from '../../views/admin-money';
import { addRoute } from '../route';

const DAY = 86_400_000;
const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const when = z
  .string()
  .refine((s) => (DAY_ONLY.test(s) || z.iso.datetime({ offset: true }).safeParse(s).success) && !Number.isNaN(Date.parse(s)), {
    message: 'must be a day YYYY-MM-DD or an ISO 8601 date-time',
  });

const revenueQuery = z.object({
  from: when.optional().describe('start (inclusive); default 30 days before `to`'),
  to: when.optional().describe('end: a day counts whole (inclusive), a date-time is exclusive; default now'),
  group_by: z.enum(['day', 'model']).default('day'),
});

/** A day names the whole day: `to=2026-03-31` ends at the start of 1 April. */
function end(raw: string | undefined): Date {
  if (raw === undefined) return new Date();
  return DAY_ONLY.test(raw) ? new Date(Date.parse(`${raw}T00:00:00Z`) + DAY) : new Date(raw);
}

/** GET /admin/revenue: what came in, what the vendors cost, and the margin. */
export function registerRevenueRoutes(router: Router, services: Pick<ApiServices, 'revenue' | 'config'>): void {
  addRoute(
    router,
    {
      method: 'get',
      path: '/revenue',
      operationId: 'adminRevenue',
      summary: 'Revenue (RUB, Stars), vendor cost (USD) and margin, per day or per model',
      description:
        'Revenue is the paid orders of the range (an order refunded or being refunded is not counted), by the day it was ' +
        'paid (UTC). Per model, the range’s revenue is split pro rata to the tokens each model consumed in the range. ' +
        'Vendor cost is the sum of the generations’ recorded vendor cost (list prices; none before it was recorded). ' +
        'Margin is revenue converted with PRICES_RUB_PER_USD and PRICES_USD_PER_STAR, less the vendor cost. At most 366 days.',
      tags: ['Admin'],
      security: 'bearer',
      query: revenueQuery,
      responses: {
        200: { description: 'The report', schema: RevenueReportSchema },
        400: { description: 'A bad range or grouping', schema: ErrorSchema },
        403: { description: 'Not an admin’s web session', schema: ErrorSchema },
      },
    },
    async (_ctx, { query }) => {
      const to = end(query.to);
      const from = query.from !== undefined ? new Date(query.from) : new Date(to.getTime() - 30 * DAY);
      const report = await services.revenue.report({ from, to, groupBy: query.group_by });
      return revenueView(report, services.config.currencyRates);
    },
  );
}
