import type Router from '@koa/router';
import type { ApiServices } from '../../api-services';
import { VendorHealthSchema } from '../../openapi/admin-money-schemas';
import { ErrorSchema } from '../../openapi/components';
import { vendorHealthView } from '../../views/admin-money';
import { addRoute } from '../route';

/** GET /admin/vendors: each vendor connection's breaker, error rate and quota pause. */
export function registerVendorRoutes(router: Router, services: Pick<ApiServices, 'vendorHealth'>): void {
  addRoute(
    router,
    {
      method: 'get',
      path: '/vendors',
      operationId: 'adminVendors',
      summary: 'Each vendor connection’s breaker state, error rate over 5 minutes and quota pause',
      description:
        'One row per connection (`<VENDOR>_API_KEY` entry, never the key). The breaker opens after repeated overloads or ' +
        'timeouts and is half open once its cooldown is over (one trial call); a quota failure pauses the connection. ' +
        'The error rate and the breakers are this instance’s view.',
      tags: ['Admin'],
      security: 'bearer',
      responses: {
        200: { description: 'Vendor connections', schema: VendorHealthSchema },
        403: { description: 'Not an admin’s web session', schema: ErrorSchema },
      },
    },
    async () => vendorHealthView(services.vendorHealth()),
  );
}
