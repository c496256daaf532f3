import { Composer, type Context } from 'grammy';
import { type I18n, localeFromTelegram } from '../i18n';
import { addressedToBot, stripBotMention } from './addressing';
import { isGroupChat, privateChatKeyboard } from './chats';

/**
 * First middleware of the bot: what reaches it from outside private chats. Channels get nothing at all. In a group
 * or supergroup only what is addressed to the bot goes on (a command, an @mention, a reply to one of its messages),
 * with the mention taken out of the text; button presses go on to the group rules (see rules.ts). Being added to a
 * group is answered with one short introduction; nothing else about membership is.
 */
export function groupGate<C extends Context>(i18n: I18n): Composer<C> {
  const gate = new Composer<C>();
  gate.use(async (ctx, next) => {
    const chat = ctx.chat;
    if (!chat || chat.type === 'private') return next();
    if (!isGroupChat(chat)) return; // channels
    const joined = ctx.myChatMember;
    if (joined) {
      const wasOut = ['left', 'kicked'].includes(joined.old_chat_member.status);
      const isIn = ['member', 'administrator'].includes(joined.new_chat_member.status);
      if (wasOut && isIn) {
        const t = i18n.translator(localeFromTelegram(joined.from.language_code));
        await ctx.reply(t('group-intro', { bot: ctx.me.username }), {
          reply_markup: privateChatKeyboard(t, ctx.me.username, 'group'),
        });
      }
      return;
    }
    if (ctx.callbackQuery) return next();
    const message = ctx.message;
    if (!message || !addressedToBot(message, ctx.me)) return;
    stripBotMention(message, ctx.me);
    await next();
  });
  return gate;
}
