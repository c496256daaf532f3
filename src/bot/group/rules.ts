import type { MiddlewareFn } from 'grammy';
import type { BotContext } from '../context';
import { isGroupChat, privateChatKeyboard, privateChatUrl } from './chats';
import { buttonWorksInGroups, commandOf, PRIVATE_COMMANDS } from './private-screens';

/** The id Telegram uses for messages an anonymous group admin sends on behalf of the group. */
const ANONYMOUS_ADMIN_BOT_ID = 1087968824;

/** Whether the sender of this update administers the group (creator or administrator, or an anonymous admin). */
async function isGroupAdmin(ctx: BotContext): Promise<boolean> {
  const chat = ctx.chat!;
  if (ctx.message?.sender_chat?.id === chat.id) return true;
  const from = ctx.from;
  if (!from || from.id === ANONYMOUS_ADMIN_BOT_ID) return false;
  try {
    const member = await ctx.api.getChatMember(chat.id, from.id);
    return member.status === 'creator' || member.status === 'administrator';
  } catch (err) {
    ctx.deps.services.log.warn({ err, chat: chat.id }, 'group admin check failed; treated as a member');
    return false;
  }
}

/**
 * The rules of a group, after the gate (only what is addressed to the bot arrives) and the account lookup (a
 * member's account is found, never created, in a group):
 * - `/off` and `/on` by a group admin switch the bot off and on for the group (kept in PostgreSQL); while it is off
 *   it answers nothing but `/on` from an admin. A member who is not an admin is told that only admins can.
 * - A button is for the member who asked: anyone else gets a toast and nothing runs.
 * - Account screens (balance, plans and payments, history, stats, settings, models, admin) get a note with a
 *   button to the private chat; so does a member without an account yet (accounts start in the private chat).
 * - Everything else runs as in a private chat, on the member's own account, and the messages with buttons the bot
 *   sends for it are recorded as that member's.
 */
export function groupRules(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const chat = ctx.chat;
    if (!chat || !isGroupChat(chat)) return next();
    const { services, owners } = ctx.deps;
    const t = ctx.t;
    const bot = ctx.me.username;
    const replyToAsker = ctx.message ? { reply_parameters: { message_id: ctx.message.message_id, allow_sending_without_reply: true } } : {};

    const command = commandOf(ctx.message?.text);
    if (command === 'on' || command === 'off') {
      const enabled = await services.groupChats.isEnabled(chat.id);
      if (!(await isGroupAdmin(ctx))) {
        if (enabled) await ctx.reply(t('group-admins-only'), replyToAsker);
        return;
      }
      await services.groupChats.setEnabled(
        chat.id,
        command === 'on',
        ctx.from?.id === ANONYMOUS_ADMIN_BOT_ID ? null : (ctx.from?.id ?? null),
      );
      await ctx.reply(command === 'on' ? t('group-switched-on', { bot }) : t('group-switched-off'), replyToAsker);
      return;
    }
    if (!(await services.groupChats.isEnabled(chat.id))) return;

    const press = ctx.callbackQuery;
    if (press) {
      const messageId = press.message?.message_id;
      const owner = messageId === undefined ? undefined : await owners.owner(chat.id, messageId);
      if (owner === undefined || owner !== press.from.id) {
        await ctx.answerCallbackQuery({ text: t('group-button-not-yours'), show_alert: true });
        return;
      }
      if (!buttonWorksInGroups(press.data ?? '')) {
        // t.me links to the bot are what answerCallbackQuery may open: the private chat, at once.
        await ctx.answerCallbackQuery({ text: t('group-private-toast', { bot }), url: privateChatUrl(bot, 'menu') });
        return;
      }
    } else {
      const privateScreen = command === undefined ? undefined : PRIVATE_COMMANDS[command];
      if (privateScreen !== undefined) {
        await ctx.reply(t('group-private-note', { bot }), { ...replyToAsker, reply_markup: privateChatKeyboard(t, bot, privateScreen) });
        return;
      }
      if (command === 'help') {
        await ctx.reply(t('group-intro', { bot }), { ...replyToAsker, reply_markup: privateChatKeyboard(t, bot, 'group') });
        return;
      }
    }
    if (!ctx.account) {
      if (press) await ctx.answerCallbackQuery({ text: t('group-no-account', { bot }), show_alert: true });
      else await ctx.reply(t('group-no-account', { bot }), { ...replyToAsker, reply_markup: privateChatKeyboard(t, bot, 'group') });
      return;
    }
    if (ctx.from) ctx.api.config.use(owners.recorder(chat.id, ctx.from.id));
    await next();
  };
}
