import { Composer, type Context } from 'grammy';
import type { Message } from 'grammy/types';
import { type I18n, localeFromTelegram } from './i18n';

/** A message meant for the bot: a command, an @mention of it, or a reply to one of its messages. */
function addressedToBot(message: Message, botId: number, botUsername: string): boolean {
  if (message.reply_to_message?.from?.id === botId) return true;
  const text = message.text ?? message.caption ?? '';
  const entities = message.entities ?? message.caption_entities ?? [];
  const mention = `@${botUsername}`.toLowerCase();
  return entities.some((e) => {
    const part = text.slice(e.offset, e.offset + e.length).toLowerCase();
    if (e.type === 'bot_command') return !part.includes('@') || part.endsWith(mention);
    return e.type === 'mention' && part === mention;
  });
}

/**
 * First middleware of the bot: it serves private chats only. In a group, supergroup or channel, a message
 * addressed to the bot gets one short note (in the sender's language) pointing to the private chat; a button
 * press gets the same note as a toast. Nothing else runs there: no account is looked up, no model is called.
 */
export function privateChatsOnly<C extends Context>(i18n: I18n): Composer<C> {
  const guard = new Composer<C>();
  const elsewhere = guard.filter((ctx) => ctx.chat !== undefined && ctx.chat.type !== 'private');
  elsewhere.use(async (ctx) => {
    const t = i18n.translator(localeFromTelegram(ctx.from?.language_code));
    const note = t('group-chat-note', { bot: ctx.me.username });
    if (ctx.callbackQuery) {
      await ctx.answerCallbackQuery({ text: note, show_alert: true });
      return;
    }
    // Added to a group: the note once, so the members know where to find the bot.
    const joined = ctx.myChatMember;
    if (joined && ctx.chat?.type !== 'channel' && ['left', 'kicked'].includes(joined.old_chat_member.status)) {
      if (['member', 'administrator'].includes(joined.new_chat_member.status)) await ctx.reply(note);
      return;
    }
    const message = ctx.message ?? ctx.channelPost;
    if (message && addressedToBot(message, ctx.me.id, ctx.me.username)) {
      await ctx.reply(note, { reply_parameters: { message_id: message.message_id, allow_sending_without_reply: true } });
    }
  });
  return guard;
}
