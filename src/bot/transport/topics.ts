import type { Context, MiddlewareFn, Transformer } from 'grammy';

/**
 * The topic an update belongs to: a forum topic of a supergroup, or a topic of a private chat with a bot that has
 * topics. Messages outside topics (and replies in a plain group, whose `message_thread_id` names the reply thread
 * but which are no topic message) have none.
 */
export function topicOf(ctx: Pick<Context, 'msg'>): number | undefined {
  const msg = ctx.msg;
  return msg?.is_topic_message && msg.message_thread_id !== undefined ? msg.message_thread_id : undefined;
}

/** The Bot API methods that put something into a chat and take `message_thread_id`. */
const SENDING = new Set([
  'sendMessage',
  'sendMessageDraft',
  'sendPhoto',
  'sendDocument',
  'sendVideo',
  'sendAudio',
  'sendVoice',
  'sendAnimation',
  'sendSticker',
  'sendMediaGroup',
  'sendInvoice',
  'sendChatAction',
  'copyMessage',
  'forwardMessage',
]);

/** `message_thread_id` for the Bot API call's payload, when it puts something into `chatId` outside a topic. */
export function withTopic<P>(method: string, payload: P, chatId: number, threadId: number): P {
  const p = payload as { chat_id?: number | string; message_thread_id?: number };
  if (!SENDING.has(method) || Number(p.chat_id) !== chatId || p.message_thread_id !== undefined) return payload;
  return { ...payload, message_thread_id: threadId };
}

/** A transformer that sends everything this client puts into `chatId` to the topic `threadId`. */
export function topicRouter(chatId: number, threadId: number): Transformer {
  return (prev, method, payload, signal) => prev(method, withTopic(method, payload, chatId, threadId), signal);
}

/**
 * Every answer, wizard step and progress message goes to the topic the update came from: installed on the update's
 * own client (what is sent later, from the background, carries the topic itself).
 */
export function topicReplies<C extends Context>(): MiddlewareFn<C> {
  return (ctx, next) => {
    const threadId = topicOf(ctx);
    if (threadId !== undefined && ctx.chat) ctx.api.config.use(topicRouter(ctx.chat.id, threadId));
    return next();
  };
}
