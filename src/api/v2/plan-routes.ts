import type Router from '@koa/router';
import { comparePlans } from '../../core/accounts/plan-comparison';
import type { ApiServices } from '../api-services';
import { PlanListSchema } from '../openapi/components';
import { addRoute } from './route';

/** GET /plans: what each plan gives, for comparing them before buying (no sign-in needed). */
export function registerPlanRoutes(router: Router, services: Pick<ApiServices, 'plans'>): void {
  addRoute(
    router,
    {
      method: 'get',
      path: '/plans',
      operationId: 'listPlans',
      summary: 'The plans and what each gives: tokens, limits, models, API keys, retention',
      description: 'Prices are those of the plan articles (GET /api/v2/payments/articles).',
      tags: ['Payments'],
      security: 'none',
      responses: { 200: { description: 'Plans, cheapest first', schema: PlanListSchema } },
    },
    async () => ({ plans: await comparePlans(services.plans) }),
  );
}
