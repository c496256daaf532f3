import Router from '@koa/router';
import type { ApiServices } from '../api-services';
import { authenticate } from '../middleware/auth';
import { refuseRestrictedKeys } from '../middleware/key-scope';
import { attachOpenApi, OpenApiRegistry } from '../openapi/registry';
import { createAdminRouter } from './admin/router';
import { noteSessionClients, registerAccountRoutes } from './account-routes';
import { registerAssistantRoutes } from './assistant-routes';
import { registerAuthRoutes } from './auth-routes';
import { registerRecoveryRoutes } from './recovery-routes';
import { registerRedeemRoutes } from './redeem-routes';
import { registerReferralRoutes } from './referral-routes';
import { registerRefusalRoutes } from './refusal-routes';
import { registerResultDeletionRoute } from './result-deletion-route';
import { registerSessionRoutes } from './session-routes';
import { registerGenerationRoutes } from './generation-routes';
import { registerKeyRoutes } from './key-routes';
import { registerModelRoutes } from './model-routes';
import { registerOpenApiRoute } from './openapi-route';
import { registerPaymentRoutes, registerPublicPaymentRoutes } from './payment-routes';
import { registerPlanRoutes } from './plan-routes';
import { registerScheduleRoutes } from './schedule-routes';
import { registerUserRoutes } from './user-routes';
import { registerUsageRoutes } from './usage-routes';
import { registerWebConfigRoute } from './web-config-route';
import { registerWebhookRoutes } from './webhook-routes';

export const V2_PREFIX = '/api/v2';

export interface V2Routers {
  /** Sign-in, refresh, logout, password recovery, the OpenAPI document: no bearer credential. */
  publicRouter: Router;
  /** Everything else: `authenticate` runs first and sets `ctx.state.auth`. */
  protectedRouter: Router;
  /** `/api/v2/admin/*`: an admin's web session only (admin/router.ts). */
  adminRouter: Router;
  registry: OpenApiRegistry;
}

export function createV2Routers(services: ApiServices): V2Routers {
  const registry = new OpenApiRegistry();

  const publicRouter = new Router({ prefix: V2_PREFIX });
  attachOpenApi(publicRouter, registry);
  publicRouter.use(noteSessionClients(services));
  registerAuthRoutes(publicRouter, services);
  registerSessionRoutes(publicRouter, services);
  registerRecoveryRoutes(publicRouter, services);
  registerOpenApiRoute(publicRouter, registry, services);
  registerWebConfigRoute(publicRouter, services);
  registerPublicPaymentRoutes(publicRouter, services);
  registerPlanRoutes(publicRouter, services);

  const protectedRouter = new Router({ prefix: V2_PREFIX });
  attachOpenApi(protectedRouter, registry);
  // Router-level middleware runs only for requests that match one of this router's routes, so unknown
  // paths still answer 404 (not 401).
  protectedRouter.use(authenticate(services), refuseRestrictedKeys(protectedRouter, registry));
  registerUserRoutes(protectedRouter, services);
  registerReferralRoutes(protectedRouter, services);
  registerRedeemRoutes(protectedRouter, services);
  registerAccountRoutes(protectedRouter, services);
  registerUsageRoutes(protectedRouter, services);
  registerKeyRoutes(protectedRouter, services);
  registerModelRoutes(protectedRouter, services);
  registerAssistantRoutes(protectedRouter, services);
  registerPaymentRoutes(protectedRouter, services);
  registerScheduleRoutes(protectedRouter, services);
  registerWebhookRoutes(protectedRouter, services);
  registerGenerationRoutes(protectedRouter, services);
  registerResultDeletionRoute(protectedRouter, services);
  registerRefusalRoutes(protectedRouter, services);

  const adminRouter = createAdminRouter(services, registry);

  return { publicRouter, protectedRouter, adminRouter, registry };
}
