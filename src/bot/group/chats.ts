import { InlineKeyboard, type Context } from 'grammy';
import type { Translate } from '../i18n';
import { topicOf } from '../transport/topics';

/** A group or supergroup (channels are neither: the bot does nothing there). */
export function isGroupChat(chat: { type: string } | undefined): boolean {
  return chat?.type === 'group' || chat?.type === 'supergroup';
}

/** Telegram gives groups, supergroups and channels negative chat ids; a private chat has the user's (positive) id. */
export function isGroupChatId(chatId: number): boolean {
  return chatId < 0;
}

/** A link that opens the private chat with the bot, with a /start parameter (letters, digits, `_` and `-`). */
export function privateChatUrl(botUsername: string, start: string): string {
  return `https://t.me/${botUsername}?start=${start}`;
}

/**
 * Where the state of an update lives (chat context, wizards): the chat in a private chat, and in a group the
 * member within the group, so one member's conversation never mixes with another's (or with their private chat).
 * A topic (of a forum, or of a private chat with topics) is a place of its own: each keeps its own conversation.
 */
export function stateKey(ctx: Pick<Context, 'chat' | 'from' | 'msg'>): string | undefined {
  const chat = ctx.chat;
  if (!chat) return undefined;
  const threadId = topicOf(ctx);
  const place = threadId === undefined ? String(chat.id) : `${chat.id}/t${threadId}`;
  if (!isGroupChat(chat)) return place;
  return ctx.from ? `${place}:${ctx.from.id}` : undefined;
}

/** The button under group notes: it opens the private chat with the bot. */
export function privateChatKeyboard(t: Translate, botUsername: string, start: string): InlineKeyboard {
  return new InlineKeyboard().url(t('button-open-private-chat'), privateChatUrl(botUsername, start));
}
