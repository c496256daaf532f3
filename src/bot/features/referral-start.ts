import type { BotContext } from '../context';

/**
 * `/start ref_<code>`: a referral link was followed. The place where the referral scheme ties a new account to its
 * inviter (once); referrals are built separately, so for now this does nothing and the usual welcome follows.
 */
export async function onReferralStart(ctx: BotContext, code: string): Promise<void> {
  ctx.deps.services.log.debug({ code, telegramId: ctx.from?.id }, 'referral link followed (referrals not connected yet)');
  return Promise.resolve();
}
