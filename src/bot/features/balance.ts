import { Composer, InlineKeyboard } from 'grammy';
import { TOKEN_PACKAGES } from '../../core/payments/articles';
import { findArticle, listArticles, startCheckout, UnknownArticleError } from '../../core/payments/checkout';
import type { BotContext } from '../context';
import { formatDate, planName } from '../format';
import { show } from './respond';

async function showBalance(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const b = await ctx.deps.services.profiles.balance(account.user);
  const text = ctx.t('balance-text', {
    plan: account.plan.name,
    total: b.token_balance,
    planTokens: b.plan_tokens_remaining,
    bonus: b.bonus_tokens,
    refill: formatDate(ctx.locale, new Date(b.next_refill_at)),
    expires: b.plan_expires_at ? formatDate(ctx.locale, new Date(b.plan_expires_at)) : ctx.t('balance-never'),
    hourly: account.plan.rateLimitHourly,
    daily: account.plan.rateLimitDaily,
  });
  const kb = new InlineKeyboard()
    .text(ctx.t('button-top-up'), 'bal:topup')
    .text(ctx.t('button-plans'), 'bal:plans')
    .row()
    .text(ctx.t('button-menu'), 'menu:main');
  await show(ctx, text, kb);
}

async function showPlans(ctx: BotContext): Promise<void> {
  const plans = [...(await ctx.deps.services.plans.all()).values()];
  const current = ctx.account?.plan.slug;
  const lines = plans.map((p) => {
    const args = {
      mark: p.slug === current ? '✓ ' : '',
      name: p.name,
      price: p.priceRub,
      tokens: p.monthlyTokens,
      hourly: p.rateLimitHourly === 0 ? ctx.t('unlimited') : String(p.rateLimitHourly),
      daily: p.rateLimitDaily === 0 ? ctx.t('unlimited') : String(p.rateLimitDaily),
    };
    return p.level === 0 ? ctx.t('plan-line-starter', args) : ctx.t('plan-line', args);
  });
  const names = Object.fromEntries(plans.map((p) => [p.slug, p.name]));
  const kb = new InlineKeyboard();
  for (const article of await listArticles(ctx.deps.services.plans)) {
    if (article.kind === 'plan' && article.plan && article.plan !== current) {
      kb.text(ctx.t('button-buy-plan', { name: names[article.plan] ?? article.plan, price: article.price_rub }), `buy:${article.id}`).row();
    }
  }
  kb.text(ctx.t('button-back'), 'menu:balance');
  await show(ctx, `${ctx.t('plans-title')}\n\n${lines.join('\n\n')}`, kb);
}

async function showTopUp(ctx: BotContext): Promise<void> {
  const kb = new InlineKeyboard();
  for (const p of TOKEN_PACKAGES) kb.text(ctx.t('button-buy-tokens', { tokens: p.tokens, price: p.priceRub }), `buy:${p.id}`).row();
  kb.text(ctx.t('button-plans'), 'bal:plans').text(ctx.t('button-back'), 'menu:balance');
  await show(ctx, ctx.t('topup-title'), kb);
}

/** Balance (plan and bonus tokens, next refill), plans with their limits, and token packages. */
export function balanceFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('balance', showBalance);
  composer.callbackQuery('menu:balance', showBalance);
  composer.command('plans', showPlans);
  composer.callbackQuery('bal:plans', showPlans);
  composer.command('topup', showTopUp);
  composer.callbackQuery('bal:topup', showTopUp);

  composer.callbackQuery(/^buy:([a-z0-9_]{1,40})$/, async (ctx) => {
    const account = ctx.account;
    if (!account) return ctx.answerCallbackQuery();
    try {
      const article = await findArticle(ctx.deps.services.plans, ctx.match[1]);
      const checkout = await startCheckout(ctx.deps.services.plans, article.id);
      ctx.deps.admin.paymentRequested(account.user, article.id, checkout.payment_id, article.price_rub);
      const title =
        article.kind === 'plan'
          ? ctx.t('article-plan', { name: (await planName(ctx.deps.services.plans, article.plan ?? '')) || article.title, days: article.period_days ?? 30 })
          : ctx.t('article-tokens', { tokens: article.tokens ?? 0 });
      await show(ctx, ctx.t('payment-pending', { title, price: article.price_rub, payment: checkout.payment_id }), new InlineKeyboard().text(ctx.t('button-menu'), 'menu:main'));
    } catch (err) {
      if (!(err instanceof UnknownArticleError)) throw err;
      await ctx.answerCallbackQuery({ text: ctx.t('payment-unknown-article') });
    }
  });
  return composer;
}
