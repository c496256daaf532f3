import { Composer } from 'grammy';
import type { BotContext } from '../context';
import { describeErrorForUser, isExpectedError } from '../errors';
import { formatDate, planName } from '../render/format';

/** `/redeem CODE` in the private chat: a promo code's bonus tokens or plan days, once per account. */
async function redeem(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  // A code is personal: in a group it would be redeemed for whoever typed it, and shown to everyone there.
  if (ctx.chat?.type !== 'private') {
    await ctx.reply(ctx.t('redeem-private-only'));
    return;
  }
  const code = typeof ctx.match === 'string' ? ctx.match.trim() : '';
  if (!code) {
    await ctx.reply(ctx.t('redeem-usage'));
    return;
  }
  const { promos, plans } = ctx.deps.services;
  try {
    const done = await promos.redeem(account.user.id, code);
    const balance = done.tokenBalance;
    const text =
      done.planSlug && done.planExpiresAt
        ? ctx.t('redeem-plan', {
            code: done.code,
            plan: await planName(plans, done.planSlug),
            date: formatDate(ctx.locale, done.planExpiresAt),
            balance,
          })
        : ctx.t('redeem-tokens', { code: done.code, tokens: done.bonusTokens ?? 0, balance });
    await ctx.reply(text);
  } catch (err) {
    if (!isExpectedError(err)) throw err;
    await ctx.reply((await describeErrorForUser(err, ctx.t, ctx.locale, plans)).text);
  }
}

export function redeemFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('redeem', redeem);
  return composer;
}
