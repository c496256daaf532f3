import type Router from '@koa/router';
import { z } from 'zod';
import { PROMO_MAX_DAYS, PROMO_MAX_TOKENS, PROMO_MAX_USES, type NewPromo } from '../../../core/promos/promo-service';
import type { PlanSlug } from '../../../core/catalog/types';
import { decodeCursor, encodeCursor } from '../../../core/stats/history';
import type { ApiServices } from '../../api-services';
import { adminActorOf } from '../../middleware/admin-actor';
import { AdminPromoCodePageSchema, AdminPromoCodeSchema } from '../../openapi/admin-promo-schemas';
import { ErrorSchema } from '../../openapi/components';
import { adminPromoView } from '../../views/admin-promos';
import { addRoute } from '../route';

const promoBody = z
  .strictObject({
    code: z.string().max(40).optional().describe('3 to 40 letters, digits, - or _ (any case; stored upper-case); drawn when absent'),
    bonus_tokens: z.number().int().min(1).max(PROMO_MAX_TOKENS).optional().describe(`1 to ${PROMO_MAX_TOKENS}; or plan and days`),
    plan: z.string().min(1).max(50).optional().describe('a paid plan slug (GET /api/v2/plans), with days'),
    days: z.number().int().min(1).max(PROMO_MAX_DAYS).optional().describe(`1 to ${PROMO_MAX_DAYS}, with plan`),
    max_uses: z.number().int().min(1).max(PROMO_MAX_USES).describe('how many accounts may redeem it, each once'),
    expires_at: z.iso
      .datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z' })
      .nullable()
      .describe('in the future; null: it does not expire'),
  })
  .refine((b) => (b.bonus_tokens !== undefined) !== (b.plan !== undefined || b.days !== undefined), {
    message: 'give bonus_tokens, or plan and days, not both',
    path: ['bonus_tokens'],
  })
  .refine((b) => (b.plan === undefined) === (b.days === undefined), { message: 'plan and days go together', path: ['days'] });

const listQuery = z.object({
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('page size, 1 to 100'),
});

const NOT_ADMIN = { description: 'Not an admin’s web session (`admin_required`)', schema: ErrorSchema };

/** POST /admin/promo-codes (audited `promo.create`), GET /admin/promo-codes. */
export function registerPromoRoutes(router: Router, services: Pick<ApiServices, 'promos'>): void {
  addRoute(
    router,
    {
      method: 'post',
      path: '/promo-codes',
      operationId: 'adminCreatePromoCode',
      summary: 'Make a promo code: bonus tokens, or a plan for some days',
      description:
        'Redeemed once per account, while uses last and before it expires, with POST /api/v2/user/redeem or `/redeem CODE` ' +
        'in the bot. In the audit log as `promo.create`.',
      tags: ['Admin'],
      security: 'bearer',
      body: promoBody,
      status: 201,
      responses: {
        201: { description: 'The new code', schema: AdminPromoCodeSchema },
        400: { description: 'A bound, both or neither reward, an unknown or free plan, a past expiry', schema: ErrorSchema },
        403: NOT_ADMIN,
        409: { description: 'The code is taken (`promo_code_taken`)', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) => {
      const common = { code: body.code, maxUses: body.max_uses, expiresAt: body.expires_at ? new Date(body.expires_at) : null };
      const input: NewPromo =
        body.bonus_tokens !== undefined
          ? { ...common, bonusTokens: body.bonus_tokens }
          : { ...common, planSlug: body.plan as Exclude<PlanSlug, 'free'>, days: body.days as number };
      return adminPromoView(await services.promos.create(input, adminActorOf(ctx)));
    },
  );

  addRoute(
    router,
    {
      method: 'get',
      path: '/promo-codes',
      operationId: 'adminListPromoCodes',
      summary: 'Promo codes, newest first, with their uses',
      tags: ['Admin'],
      security: 'bearer',
      query: listQuery,
      responses: {
        200: { description: 'One page of codes', schema: AdminPromoCodePageSchema },
        400: { description: 'A bad cursor', schema: ErrorSchema },
        403: NOT_ADMIN,
      },
    },
    async (_ctx, { query }) => {
      const rows = await services.promos.list({
        limit: query.limit + 1,
        before: query.cursor ? decodeCursor(query.cursor) : undefined,
      });
      const items = rows.slice(0, query.limit);
      return {
        items: items.map(adminPromoView),
        next_cursor: rows.length > query.limit ? encodeCursor(items[items.length - 1]!.id) : null,
      };
    },
  );
}
