import { Composer, InlineKeyboard } from 'grammy';
import type { BotContext } from '../context';
import { formatDate } from '../render/format';
import { show } from './respond';
import { BALANCE_PLANS, BALANCE_TOP_UP, MENU, PAY, REFERRAL, SUBSCRIPTION_CANCEL } from '../callback-data';

async function showBalance(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const b = await ctx.deps.services.profiles.balance(account.user);
  const { plan } = account;
  const date = (d: Date) => formatDate(ctx.locale, d);
  const limit = (n: number) => (n === 0 ? ctx.t('unlimited') : String(n));
  const text = [
    ctx.t('balance-text', { total: b.tokenBalance, planTokens: b.planTokensRemaining, bonus: b.bonusTokens }),
    [
      b.planExpiresAt
        ? ctx.t('balance-plan-until', { plan: plan.name, date: date(b.planExpiresAt) })
        : ctx.t('balance-plan', { plan: plan.name }),
      // A plan without a monthly allowance (Starter) never refills: no refill date to promise.
      plan.monthlyTokens > 0
        ? ctx.t('balance-refill', { date: date(b.nextRefillAt), tokens: plan.monthlyTokens })
        : ctx.t('balance-no-refill', { plan: plan.name }),
      plan.rateLimitHourly === 0 && plan.rateLimitDaily === 0
        ? ctx.t('balance-no-limits')
        : ctx.t('balance-limits', { hourly: limit(plan.rateLimitHourly), daily: limit(plan.rateLimitDaily) }),
    ].join('\n'),
  ].join('\n\n');
  const kb = new InlineKeyboard().text(ctx.t('button-top-up'), BALANCE_TOP_UP.data).text(ctx.t('button-plans'), BALANCE_PLANS.data).row();
  if (await ctx.deps.services.payments.stars.activeSubscription(account.user.id))
    kb.text(ctx.t('button-cancel-subscription'), SUBSCRIPTION_CANCEL.data).row();
  kb.text(ctx.t('button-invite'), REFERRAL.data).row();
  kb.text(ctx.t('button-menu'), MENU.data('main'));
  await show(ctx, text, kb);
}

/**
 * The plans with their limits, priced in what the bot takes: Telegram Stars, for 30 days (the article that sells the
 * plan here). A plan the bot does not sell has no price line.
 */
export async function showPlans(ctx: BotContext): Promise<void> {
  const plans = [...(await ctx.deps.services.plans.all()).values()];
  const current = ctx.account?.plan.slug;
  const articles = await ctx.deps.services.payments.catalog.list();
  const starsOf = (plan: string) => articles.find((a) => a.kind === 'plan' && a.plan === plan)?.stars;
  const lines = plans.map((p) => {
    const stars = starsOf(p.slug);
    const args = {
      mark: p.slug === current ? '✓ ' : '',
      name: p.name,
      stars: stars ?? 0,
      tokens: p.monthlyTokens,
      hourly: p.rateLimitHourly === 0 ? ctx.t('unlimited') : String(p.rateLimitHourly),
      daily: p.rateLimitDaily === 0 ? ctx.t('unlimited') : String(p.rateLimitDaily),
    };
    return p.level === 0
      ? ctx.t('plan-line-starter', args)
      : stars === undefined
        ? ctx.t('plan-line-unsold', args)
        : ctx.t('plan-line', args);
  });
  const names = Object.fromEntries(plans.map((p) => [p.slug, p.name]));
  const kb = new InlineKeyboard();
  for (const article of articles) {
    if (article.kind === 'plan' && article.plan && article.plan !== current) {
      kb.text(ctx.t('button-buy-plan', { name: names[article.plan] ?? article.plan, stars: article.stars }), PAY.data(article.id)).row();
    }
  }
  kb.text(ctx.t('button-back'), MENU.data('balance'));
  await show(ctx, `${ctx.t('plans-title')}\n\n${lines.join('\n\n')}`, kb);
}

/** Balance (plan and bonus tokens, next refill where the plan has one) and plans with their limits; buying is in features/payments.ts. */
export function balanceFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('balance', showBalance);
  composer.callbackQuery(MENU.data('balance'), showBalance);
  composer.command('plans', showPlans);
  composer.callbackQuery(BALANCE_PLANS.data, showPlans);
  return composer;
}
