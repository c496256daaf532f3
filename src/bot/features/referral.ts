import { Composer, InlineKeyboard } from 'grammy';
import { referralLink } from '../../core/referrals/links';
import { MENU, REFERRAL } from '../callback-data';
import type { BotContext } from '../context';
import { show } from './respond';

/** Telegram's share page: the user picks a chat and the link goes there with the text. */
const shareUrl = (link: string, text: string) => `https://t.me/share/url?url=${encodeURIComponent(link)}&text=${encodeURIComponent(text)}`;

/** /referral (and Balance → Invite friends): the account's invitation link, what it brought, and the terms. */
async function showReferral(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const { referrals } = ctx.deps.services;
  const summary = await referrals.summary(account.user.id);
  const link = referralLink(summary.code, { botUsername: ctx.me.username, dashboardBase: ctx.deps.ownOrigin });
  const { inviterBonus, inviteeBonus } = referrals.bonuses;
  const terms =
    inviterBonus > 0 || inviteeBonus > 0
      ? ctx.t('referral-terms', { inviter: inviterBonus, invitee: inviteeBonus })
      : ctx.t('referral-terms-none');
  const text = [
    ctx.t('referral-title'),
    ctx.t('referral-link', { link }),
    terms,
    ctx.t('referral-stats', { invited: summary.invited, earned: summary.earnedTokens }),
  ].join('\n\n');
  const kb = new InlineKeyboard()
    .url(ctx.t('button-share-link'), shareUrl(link, ctx.t('referral-share-text')))
    .row()
    .text(ctx.t('button-back'), MENU.data('balance'))
    .text(ctx.t('button-menu'), MENU.data('main'));
  await show(ctx, text, kb);
}

/** Invitations: the link to share and its count; joining through a link is handled at /start (referral-start.ts). */
export function referralFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command(['referral', 'invite'], showReferral);
  composer.callbackQuery(REFERRAL.data, showReferral);
  return composer;
}
