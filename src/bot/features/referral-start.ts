import type { BotContext } from '../context';

/**
 * `/start ref_<code>`: a referral link was followed. A new account (this very /start created it) is tied to the
 * link's owner, once; the answer is the note the welcome is followed by (undefined: nothing to say).
 */
export async function onReferralStart(ctx: BotContext, code: string): Promise<string | undefined> {
  const account = ctx.account;
  if (!account) return undefined;
  const { referrals } = ctx.deps.services;
  const { outcome, inviterName } = await referrals.join(account.user.id, code, { newAccount: account.isNew });
  switch (outcome) {
    case 'joined':
      return referrals.bonuses.inviteeBonus > 0
        ? ctx.t('referral-joined-bonus', { name: inviterName ?? '', tokens: referrals.bonuses.inviteeBonus })
        : ctx.t('referral-joined', { name: inviterName ?? '' });
    case 'own_code':
      return ctx.t('referral-own-link');
    case 'already_joined':
    case 'not_new':
      return ctx.t('referral-not-new');
    case 'unknown_code':
      return ctx.t('referral-unknown');
  }
}
