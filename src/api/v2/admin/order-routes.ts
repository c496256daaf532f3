import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../../api-services';
import { adminActorOf } from '../../middleware/admin-actor';
import { AdminOrderPageSchema, AdminRefundSchema } from '../../openapi/admin-money-schemas';
import { ErrorSchema } from '../../openapi/components';
import { orderPageView, refundView } from '../../views/admin-money';
import { idParam, idParams } from '../path-params';
import { addRoute } from '../route';

const orderQuery = z.object({
  status: z.enum(['pending', 'paid', 'fulfilled', 'canceled', 'expired', 'refund_pending', 'refunded']).optional(),
  user_id: idParam.optional().describe('only this account’s orders'),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('page size, 1 to 100'),
});

/** GET /admin/orders, POST /admin/orders/{id}/refund (the bot's refund rules, audited). */
export function registerOrderRoutes(router: Router, services: Pick<ApiServices, 'adminOrders'>): void {
  addRoute(
    router,
    {
      method: 'get',
      path: '/orders',
      operationId: 'adminListOrders',
      summary: 'Every account’s orders, newest first',
      tags: ['Admin'],
      security: 'bearer',
      query: orderQuery,
      responses: {
        200: { description: 'One page of orders', schema: AdminOrderPageSchema },
        400: { description: 'A bad filter or cursor', schema: ErrorSchema },
        403: { description: 'Not an admin’s web session', schema: ErrorSchema },
      },
    },
    async (_ctx, { query }) =>
      orderPageView(
        await services.adminOrders.list({ status: query.status, userId: query.user_id, cursor: query.cursor, limit: query.limit }),
      ),
  );

  addRoute(
    router,
    {
      method: 'post',
      path: '/orders/:id/refund',
      operationId: 'adminRefundOrder',
      summary: 'Refund an order at its provider and take back what is left of its credit',
      description:
        'As the bot’s `/admin refund`: the provider is asked first (Stars: refundStarPayment), then the unspent tokens ' +
        'are taken back (spent ones are not). Single-shot: a refunded order answers `already_refunded` and changes ' +
        'nothing. A provider that cannot answer now leaves the refund `queued` for the job. Each refund that changed ' +
        'the order is in the audit log (`order.refund`).',
      tags: ['Admin'],
      security: 'bearer',
      params: idParams,
      responses: {
        200: { description: 'What the refund did', schema: AdminRefundSchema },
        404: { description: 'No such order', schema: ErrorSchema },
        409: { description: 'The order is not refundable in its state (not fulfilled)', schema: ErrorSchema },
        403: { description: 'Not an admin’s web session', schema: ErrorSchema },
      },
    },
    async (ctx, { params }) => refundView(await services.adminOrders.refund(params.id, adminActorOf(ctx))),
  );
}
