import type Router from '@koa/router';
import { z } from 'zod';
import type { Redemption } from '../../core/promos/promo-service';
import { PLAN_SLUGS } from '../../core/catalog/types';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import { components, ErrorSchema } from '../openapi/components';
import { addRoute } from './route';

const redeemBody = z.strictObject({ code: z.string().trim().min(1).max(100).describe('the promo code, whatever its case') });

export const RedemptionSchema = z.object({
  code: z.string().describe('the code redeemed (upper case)'),
  bonus_tokens: z.number().int().optional().describe('bonus tokens credited (a tokens code, or a plan code while a higher plan runs)'),
  plan: z.enum(PLAN_SLUGS).optional().describe('the plan the account is on now (a plan code)'),
  plan_expires_at: z.string().optional().describe('ISO date until which that plan runs'),
  token_balance: z.number().int().describe('tokens available after the redemption (plan and bonus)'),
});
components.add(RedemptionSchema, {
  id: 'Redemption',
  description:
    'What a promo code gave: bonus tokens (a ledger grant), or a plan for the code’s days (the same plan running is extended; a higher plan running is kept and the code comes as bonus tokens worth the plan’s allowance).',
});

export function redemptionView(r: Redemption): z.infer<typeof RedemptionSchema> {
  return {
    code: r.code,
    ...(r.bonusTokens !== undefined ? { bonus_tokens: r.bonusTokens } : {}),
    ...(r.planSlug !== undefined ? { plan: r.planSlug } : {}),
    ...(r.planExpiresAt !== undefined ? { plan_expires_at: r.planExpiresAt.toISOString() } : {}),
    token_balance: r.tokenBalance,
  };
}

/** /user/redeem: a promo code, once per account. */
export function registerRedeemRoutes(router: Router, services: Pick<ApiServices, 'promos'>): void {
  const { promos } = services;
  addRoute(
    router,
    {
      method: 'post',
      path: '/user/redeem',
      operationId: 'redeemPromoCode',
      summary: 'Redeem a promo code: bonus tokens or plan days, once per account; a refusal changes nothing',
      tags: ['User'],
      security: 'bearer',
      body: redeemBody,
      responses: {
        200: { description: 'The Redemption object', schema: RedemptionSchema },
        404: { description: '`promo_not_found`: no code is called that', schema: ErrorSchema },
        409: {
          description: '`promo_already_redeemed`: this account redeemed it before; `promo_exhausted`: every use is taken',
          schema: ErrorSchema,
        },
        410: { description: '`promo_expired`: past its expiry date (`expires_at` in the body)', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) => redemptionView(await promos.redeem(authOf(ctx).userId, body.code)),
  );
}
