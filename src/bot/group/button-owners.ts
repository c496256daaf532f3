import type { Transformer } from 'grammy';
import type { JsonStore } from '../../core/sessions/json-store';

/** Bot API methods whose `reply_markup` puts buttons under a message (sent, or edited into it). */
const SENDING = new Set(['sendMessage', 'sendPhoto', 'sendDocument', 'sendVideo', 'sendAudio', 'sendVoice']);
const EDITING = new Set(['editMessageText', 'editMessageReplyMarkup', 'editMessageCaption', 'editMessageMedia']);

function hasCallbackButtons(payload: unknown): boolean {
  const markup = (payload as { reply_markup?: { inline_keyboard?: { callback_data?: string }[][] } }).reply_markup;
  return markup?.inline_keyboard?.some((row) => row.some((b) => b.callback_data !== undefined)) === true;
}

/**
 * Who may press the buttons of a bot message in a group: the member whose request it answers. The bot records the
 * owner whenever it sends or edits buttons into a group message on a member's behalf (an API transformer on that
 * update's client), and a press by anyone else is refused. Kept in PostgreSQL (bot_sessions, prefix `owner:`), so
 * every instance and a restart agree.
 */
export class ButtonOwners {
  constructor(private readonly store: JsonStore<number>) {}

  owner(chatId: number, messageId: number): Promise<number | undefined> {
    return this.store.read(`${chatId}:${messageId}`);
  }

  /** A transformer that makes `ownerId` the owner of every message with buttons the client puts into `chatId`. */
  recorder(chatId: number, ownerId: number): Transformer {
    return async (prev, method, payload, signal) => {
      const res = await prev(method, payload, signal);
      const p = payload as { chat_id?: number | string; message_id?: number };
      if (!res.ok || Number(p.chat_id) !== chatId || !hasCallbackButtons(payload)) return res;
      const messageId = SENDING.has(method)
        ? (res.result as { message_id?: number }).message_id
        : EDITING.has(method)
          ? p.message_id
          : undefined;
      if (messageId !== undefined) await this.store.write(`${chatId}:${messageId}`, ownerId);
      return res;
    };
  }

  /** Makes `ownerId` the owner of a message with buttons sent outside an update (a result delivered later). */
  record(chatId: number, messageId: number, ownerId: number): Promise<void> {
    return this.store.write(`${chatId}:${messageId}`, ownerId);
  }

  purgeOlderThan(days: number): Promise<number> {
    return this.store.purgeOlderThan(days);
  }
}
