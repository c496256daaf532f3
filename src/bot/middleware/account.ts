import type { MiddlewareFn } from 'grammy';
import type { BotContext } from '../context';
import { isGroupChat } from '../group/chats';
import { isLocale, localeFromTelegram } from '../i18n';

/**
 * Finds (or, on first contact, creates) the account of the Telegram user behind the update: the same account as
 * a messenger-login web session of that user. Its settings decide the language (a new account starts with the
 * user's Telegram language). A blocked account gets a notice and nothing else. In a group the account is only
 * looked up: a member without one has no `ctx.account` (the group rules send them to the private chat).
 */
export function accountMiddleware(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const { services, i18n, admin } = ctx.deps;
    const from = ctx.from;
    ctx.locale = localeFromTelegram(from?.language_code);
    if (from && !from.is_bot) {
      // Accounts start in the private chat (/start or any first message there); a group only finds them.
      const found = isGroupChat(ctx.chat)
        ? await services.accountAdmin.findByReference(`tg:${from.id}`).then((user) => (user ? { user, created: false } : null))
        : await services.accountAdmin.findOrCreateTelegramUser({
            id: from.id,
            first_name: from.first_name,
            last_name: from.last_name,
            username: from.username,
            language: ctx.locale,
          });
      if (!found) {
        ctx.t = i18n.translator(ctx.locale);
        return next();
      }
      const { user, created } = found;
      if (created) admin.newUser(user, from.username);
      if (user.botBlockedAt && !isGroupChat(ctx.chat)) await services.accountAdmin.markBotReachable(user.id);
      const settings = await services.settings.get(user.id);
      if (isLocale(settings.language)) ctx.locale = settings.language;
      ctx.t = i18n.translator(ctx.locale);
      if (user.isBlocked) {
        if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
        // Said in private only: a group is not told about a member's account.
        if (!isGroupChat(ctx.chat)) await ctx.reply(ctx.t('account-blocked'));
        return;
      }
      ctx.account = { user, plan: await services.plans.get(user.planSlug), locale: ctx.locale, settings, isNew: created };
    }
    ctx.t = i18n.translator(ctx.locale);
    await next();
  };
}
