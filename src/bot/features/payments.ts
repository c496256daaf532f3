import { Composer, InlineKeyboard } from 'grammy';
import { hasErrorCode } from '../../core/error-registry';
import type { PreCheckoutAnswer } from '../../core/payments/stars';
import type { BotContext } from '../context';
import { formatDate, planName } from '../render/format';
import { show } from './respond';
import { BALANCE_PLANS, BALANCE_TOP_UP, MENU, onCallback, PAY, SUBSCRIPTION_CANCEL } from '../callback-data';

/** Telegram asks for an answer within 10 s; past this the order check gives up and the user may try again. */
const PRE_CHECKOUT_BUDGET_MS = 8_000;

async function showArticles(ctx: BotContext): Promise<void> {
  const { payments, plans } = ctx.deps.services;
  const kb = new InlineKeyboard();
  for (const a of await payments.catalog.list()) {
    if (a.kind === 'tokens') kb.text(ctx.t('button-buy-tokens', { tokens: a.tokens ?? 0, stars: a.stars }), PAY.data(a.id)).row();
    else if (a.plan !== ctx.account?.plan.slug)
      kb.text(ctx.t('button-buy-plan', { name: await planName(plans, a.plan ?? ''), stars: a.stars }), PAY.data(a.id)).row();
  }
  kb.text(ctx.t('button-plans'), BALANCE_PLANS.data).text(ctx.t('button-back'), MENU.data('balance'));
  await show(ctx, ctx.t('topup-title'), kb);
}

/** A package is an invoice (sendInvoice); a plan is a 30-day Stars subscription link (createInvoiceLink). */
async function buy(ctx: BotContext, articleId: string): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const { payments, plans } = ctx.deps.services;
  let purchase;
  try {
    purchase = await payments.stars.startPurchase(account.user.id, articleId);
  } catch (err) {
    if (!hasErrorCode(err, 'unknown_article')) throw err;
    await ctx.answerCallbackQuery({ text: ctx.t('payment-unknown-article') });
    return;
  }
  await ctx.answerCallbackQuery().catch(() => undefined);
  const { article, invoice } = purchase;
  const prices = [{ label: invoice.title, amount: invoice.amount }];
  if (invoice.subscriptionPeriod) {
    const name = await planName(plans, article.plan ?? '');
    const title = ctx.t('article-plan', { name, days: article.periodDays ?? 30 });
    const link = await ctx.api.createInvoiceLink(
      title,
      ctx.t('payment-invoice-description-plan', { name }),
      invoice.payload,
      '',
      invoice.currency,
      prices,
      {
        subscription_period: invoice.subscriptionPeriod,
      },
    );
    await ctx.reply(ctx.t('payment-plan-link', { title, stars: invoice.amount }), {
      reply_markup: new InlineKeyboard().url(ctx.t('button-pay-stars', { stars: invoice.amount }), link),
    });
    return;
  }
  const title = ctx.t('article-tokens', { tokens: article.tokens ?? 0 });
  await ctx.api.sendInvoice(
    ctx.chat?.id ?? account.user.telegramId ?? '',
    title,
    ctx.t('payment-invoice-description-tokens', { tokens: article.tokens ?? 0 }),
    invoice.payload,
    invoice.currency,
    prices,
    {
      provider_token: '',
    },
  );
}

async function preCheckout(ctx: BotContext): Promise<void> {
  const q = ctx.preCheckoutQuery;
  if (!q) return;
  const timeout = new Promise<'busy'>((resolve) => setTimeout(() => resolve('busy'), PRE_CHECKOUT_BUDGET_MS).unref());
  const check = ctx.deps.services.payments.stars.preCheckout({
    telegramUserId: q.from.id,
    payload: q.invoice_payload,
    currency: q.currency,
    totalAmount: q.total_amount,
  });
  const answer: PreCheckoutAnswer | 'busy' = await Promise.race([check, timeout]).catch((err: unknown) => {
    ctx.deps.services.log.error({ err }, 'pre-checkout check failed');
    return 'busy' as const;
  });
  if (answer !== 'busy' && answer.ok) {
    await ctx.answerPreCheckoutQuery(true);
    return;
  }
  const reason = answer === 'busy' ? 'busy' : answer.reason;
  const text =
    reason === 'busy'
      ? ctx.t('precheckout-busy')
      : reason === 'wrong_amount'
        ? ctx.t('precheckout-wrong-amount')
        : reason === 'not_pending'
          ? ctx.t('precheckout-not-pending')
          : ctx.t('precheckout-unknown-order');
  await ctx.answerPreCheckoutQuery(false, { error_message: text });
}

async function paid(ctx: BotContext): Promise<void> {
  const sp = ctx.message?.successful_payment;
  const from = ctx.from;
  if (!sp || !from) return;
  const { payments, plans, profiles } = ctx.deps.services;
  const result = await payments.stars.paymentReceived({
    telegramUserId: from.id,
    payload: sp.invoice_payload,
    currency: sp.currency,
    totalAmount: sp.total_amount,
    chargeId: sp.telegram_payment_charge_id,
    isRecurring: sp.is_recurring,
    isFirstRecurring: sp.is_first_recurring,
  });
  if (result.outcome === 'refunded' || !result.order) {
    await ctx.reply(ctx.t('payment-unmatched'));
    return;
  }
  if (result.outcome === 'duplicate') {
    await ctx.reply(ctx.t('payment-duplicate'));
    return;
  }
  const order = result.order;
  const balance = await profiles.totalTokens(order.userId);
  // The invitation's bonus came with this first payment: said with the thanks.
  const invited = result.referral?.inviteeBonus ? `\n${ctx.t('referral-rewarded-invitee', { tokens: result.referral.inviteeBonus })}` : '';
  if (order.kind === 'tokens') {
    await ctx.reply(ctx.t('payment-thanks-tokens', { tokens: order.tokens ?? 0, balance }) + invited);
    return;
  }
  const user = await profiles.user(order.userId);
  const until = user?.planExpiresAt ? formatDate(ctx.locale, new Date(user.planExpiresAt)) : '—';
  if (result.planChange === 'bonus') {
    await ctx.reply(
      ctx.t('payment-plan-as-bonus', {
        plan: await planName(plans, order.planSlug ?? ''),
        current: await planName(plans, user?.planSlug ?? ''),
        tokens: result.bonusTokens ?? 0,
        until,
        balance,
      }) + invited,
    );
    return;
  }
  await ctx.reply(ctx.t('payment-thanks-plan', { plan: await planName(plans, order.planSlug ?? ''), until, balance }) + invited);
}

/** Stops the renewal (editUserStarSubscription); the plan stays to the end of the paid period. */
async function cancelSubscription(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  const from = ctx.from;
  if (!account || !from) return;
  await ctx.answerCallbackQuery().catch(() => undefined);
  const { payments, plans, profiles } = ctx.deps.services;
  const subscription = await payments.stars.activeSubscription(account.user.id);
  if (!subscription?.providerChargeId) {
    await ctx.reply(ctx.t('subscription-none'));
    return;
  }
  await ctx.api.editUserStarSubscription(from.id, subscription.providerChargeId, true);
  await payments.stars.markSubscriptionCanceled(subscription.id);
  const user = await profiles.user(account.user.id);
  const until = user?.planExpiresAt ? formatDate(ctx.locale, new Date(user.planExpiresAt)) : '—';
  const plan = await planName(plans, subscription.planSlug ?? '');
  // A subscription to a plan the account is no longer on (a higher one was bought): the running plan is untouched.
  if (subscription.planSlug !== user?.planSlug) await ctx.reply(ctx.t('subscription-canceled-other', { plan }));
  else await ctx.reply(ctx.t('subscription-canceled', { plan, until }));
}

/** Telegram Stars: /buy (and Balance → Top up), invoices, pre-checkout, successful payments, /paysupport, cancel. */
export function paymentsFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command(['buy', 'topup'], showArticles);
  composer.callbackQuery(BALANCE_TOP_UP.data, showArticles);
  onCallback(composer, PAY, buy);
  composer.on('pre_checkout_query', preCheckout);
  composer.on('message:successful_payment', paid);
  composer.command('paysupport', (ctx) => ctx.reply(ctx.t('paysupport-text')));
  composer.callbackQuery(SUBSCRIPTION_CANCEL.data, cancelSubscription);
  return composer;
}
