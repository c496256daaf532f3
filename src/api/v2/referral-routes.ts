import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import { components } from '../openapi/components';
import { publicBaseUrl } from './public-url';
import { addRoute } from './route';

export const ReferralSchema = z.object({
  code: z.string().describe('the account’s invitation code'),
  link: z
    .string()
    .describe(
      'the invitation link: the bot’s `https://t.me/<bot>?start=ref_<code>` when the service runs a Telegram bot (BOT_TOKEN), else the dashboard’s sign-up page `<PUBLIC_URL>/register?ref=<code>`',
    ),
  invited: z.number().int().describe('accounts that joined through this account’s links'),
  earned_tokens: z.number().int().describe('bonus tokens credited to this account for its invitees’ first payments'),
});
components.add(ReferralSchema, {
  id: 'Referral',
  description:
    'An account’s invitation link and what it brought. A new account that joins through the link is tied to this one once; at its first payment both get bonus tokens (REFERRAL_BONUS_INVITER, REFERRAL_BONUS_INVITEE).',
});

/** /user/referral: the caller's invitation code and link. */
export function registerReferralRoutes(router: Router, services: Pick<ApiServices, 'config' | 'referrals'>): void {
  const { referrals } = services;
  addRoute(
    router,
    {
      method: 'get',
      path: '/user/referral',
      operationId: 'getReferral',
      summary: 'The caller’s invitation code and link, how many joined through it, and the bonus tokens it earned',
      tags: ['User'],
      security: 'bearer',
      responses: { 200: { description: 'The Referral object', schema: ReferralSchema } },
    },
    async (ctx) => {
      const summary = await referrals.summary(authOf(ctx).userId);
      return {
        code: summary.code,
        link: await referrals.link(summary.code, publicBaseUrl(ctx, services.config)),
        invited: summary.invited,
        earned_tokens: summary.earnedTokens,
      };
    },
  );
}
