import type Router from '@koa/router';
import { z } from 'zod';
import { listArticles, startCheckout } from '../../core/payments/checkout';
import type { Services } from '../../services';
import { ArticleListSchema, CheckoutSchema, ErrorSchema } from '../openapi/components';
import { addRoute } from './route';

const checkoutBody = z.strictObject({ article_id: z.string().trim().min(1).max(100).describe('see GET /api/v2/payments/articles') });
const NOT_CONNECTED =
  'The payment provider is not connected yet: the answer is a `pending` payment that charges and grants nothing.';

/** Carrier payments: articles are data; an unknown article id answers 400. */
export function registerPaymentRoutes(router: Router, services: Pick<Services, 'plans'>): void {
  const tags = ['Payments'];

  addRoute(
    router,
    {
      method: 'get',
      path: '/payments/articles',
      operationId: 'listArticles',
      summary: 'What can be bought: token packages and plans',
      tags,
      security: 'bearer',
      responses: { 200: { description: 'Articles', schema: ArticleListSchema } },
    },
    async () => ({ articles: await listArticles(services.plans) }),
  );

  for (const [path, operationId, summary] of [
    ['/payments/carrier/quick-checkout', 'carrierQuickCheckout', 'Quick checkout of an article through the mobile carrier'],
    ['/payments/carrier/initiate', 'carrierInitiate', 'Start a carrier payment for an article'],
  ] as const) {
    addRoute(
      router,
      {
        method: 'post',
        path,
        operationId,
        summary,
        description: NOT_CONNECTED,
        tags,
        security: 'bearer',
        body: checkoutBody,
        responses: {
          200: { description: 'A pending payment', schema: CheckoutSchema },
          400: { description: 'Unknown article id (`unknown_article`) or invalid body', schema: ErrorSchema },
        },
      },
      async (_ctx, { body }) => startCheckout(services.plans, body.article_id),
    );
  }
}
