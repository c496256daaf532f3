import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../../api-services';
import { adminActorOf } from '../../middleware/admin-actor';
import { CatalogListSchema, CatalogModelSchema } from '../../openapi/admin-money-schemas';
import { ErrorSchema } from '../../openapi/components';
import { catalogModelView, catalogView } from '../../views/admin-money';
import { addRoute } from '../route';

const slugParams = z.object({ slug: z.string().min(1).max(100) });

const catalogPatch = z
  .object({
    enabled: z.boolean().optional().describe('false takes the model out of service (its replacement answers, else 410)'),
    replacement: z.string().min(1).max(100).optional().describe('a catalog model of the same category'),
    shutdown_at: z.iso.date({ message: 'must be a date YYYY-MM-DD' }).optional(),
  })
  .strict()
  .refine((b) => b.enabled !== undefined || b.replacement !== undefined || b.shutdown_at !== undefined, {
    message: 'give at least one of enabled, replacement, shutdown_at',
  });

/** GET /admin/catalog, PATCH /admin/catalog/{slug} (catalog:set's changes, audited). */
export function registerCatalogRoutes(router: Router, services: Pick<ApiServices, 'catalogConsole'>): void {
  addRoute(
    router,
    {
      method: 'get',
      path: '/catalog',
      operationId: 'adminCatalog',
      summary: 'Every catalog model: lifecycle, rates with the vendor cost beside them, the last check’s findings',
      tags: ['Admin'],
      security: 'bearer',
      responses: {
        200: { description: 'The catalog', schema: CatalogListSchema },
        403: { description: 'Not an admin’s web session', schema: ErrorSchema },
      },
    },
    async () => catalogView(await services.catalogConsole.view()),
  );

  addRoute(
    router,
    {
      method: 'patch',
      path: '/catalog/:slug',
      operationId: 'adminUpdateCatalogModel',
      summary: 'Enable or disable a model, set its replacement or shutdown date',
      description:
        'As `npm run cli -- catalog:set`: kept in the database and applied by every instance at once. Each change is in ' +
        'the audit log (`catalog.update`, before and after).',
      tags: ['Admin'],
      security: 'bearer',
      params: slugParams,
      body: catalogPatch,
      responses: {
        200: { description: 'The model after the change', schema: CatalogModelSchema },
        400: { description: 'A replacement of another category, a bad date, an empty change', schema: ErrorSchema },
        404: { description: 'No such model in the catalog (`model_not_found`)', schema: ErrorSchema },
        403: { description: 'Not an admin’s web session', schema: ErrorSchema },
      },
    },
    async (ctx, { params, body }) =>
      catalogModelView(
        await services.catalogConsole.update(
          params.slug,
          { enabled: body.enabled, replacement: body.replacement, shutdownAt: body.shutdown_at },
          adminActorOf(ctx),
        ),
      ),
  );
}
