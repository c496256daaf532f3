import Router from '@koa/router';
import type { ApiServices } from '../../api-services';
import { adminOnly } from '../../middleware/admin-only';
import { authenticate } from '../../middleware/auth';
import { attachOpenApi, OpenApiRegistry } from '../../openapi/registry';
import { registerCatalogRoutes } from './catalog-routes';
import { registerOrderRoutes } from './order-routes';
import { registerRevenueRoutes } from './revenue-routes';
import { registerVendorRoutes } from './vendor-routes';
import { registerAuditRoutes } from './audit-routes';
import { registerPromoRoutes } from './promo-routes';
import { registerBroadcastRoutes } from './broadcast-routes';
import { registerUserRoutes } from './user-routes';

export const ADMIN_PREFIX = '/api/v2/admin';

/**
 * `/api/v2/admin/*`, the operator's console: an admin's web session only (`adminOnly`). Each area registers its
 * own file here (`<area>-routes.ts`); every state-changing route writes one audit row in its transaction.
 */
export function createAdminRouter(services: ApiServices, registry: OpenApiRegistry): Router {
  const router = new Router({ prefix: ADMIN_PREFIX });
  attachOpenApi(router, registry);
  // Router-level middleware runs only for a path one of these routes matches: unknown paths still answer 404.
  router.use(authenticate(services), adminOnly());
  registerUserRoutes(router, services);
  registerRevenueRoutes(router, services);
  registerOrderRoutes(router, services);
  registerCatalogRoutes(router, services);
  registerVendorRoutes(router, services);
  registerAuditRoutes(router, services);
  registerPromoRoutes(router, services);
  registerBroadcastRoutes(router, services);
  return router;
}
