import type { Context } from 'grammy';

/**
 * The topic an update belongs to: a forum topic of a supergroup, or a topic of a private chat with a bot that has
 * topics. Messages outside topics (and replies in a plain group, whose `message_thread_id` names the reply thread
 * but which are no topic message) have none.
 */
export function topicOf(ctx: Pick<Context, 'msg'>): number | undefined {
  const msg = ctx.msg;
  return msg?.is_topic_message && msg.message_thread_id !== undefined ? msg.message_thread_id : undefined;
}
