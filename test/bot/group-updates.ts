import type { Update } from 'grammy/types';
import { BOT_USER } from './fake-telegram';

// Group and topic updates as the Bot API delivers them: a supergroup (optionally a forum) whose messages in a topic
// carry `message_thread_id` and `is_topic_message`, as do the bot's messages a button press comes from.

let updateId = 950_000;
let messageId = 50_000;
const now = () => Math.floor(Date.now() / 1000);

export interface GroupChat {
  id: number;
  type: 'supergroup';
  title: string;
  is_forum?: true;
}

export const member = (id: number, languageCode = 'en') => ({
  id,
  is_bot: false as const,
  first_name: `Member${id % 100}`,
  language_code: languageCode,
});
export type Member = ReturnType<typeof member>;

/** Where a message is: a chat, and a topic of it when given. */
export interface Place {
  chat: GroupChat | { id: number; type: 'private'; first_name: string };
  threadId?: number;
}

function topicFields(threadId: number | undefined) {
  return threadId !== undefined ? { message_thread_id: threadId, is_topic_message: true as const } : {};
}

/** A text message: commands and mentions of the bot carry their entities. */
export function textIn(place: Place, from: Member, text: string, replyTo?: { message_id: number; text?: string }): Update {
  const entities: { type: 'bot_command' | 'mention'; offset: number; length: number }[] = [];
  const command = /^\/[A-Za-z0-9_]+(@\w+)?/.exec(text);
  if (command) entities.push({ type: 'bot_command', offset: 0, length: command[0].length });
  const mention = text.indexOf(`@${BOT_USER.username}`);
  if (mention >= 0 && !command) entities.push({ type: 'mention', offset: mention, length: BOT_USER.username.length + 1 });
  return {
    update_id: updateId++,
    message: {
      message_id: messageId++,
      from,
      chat: place.chat,
      date: now(),
      text,
      ...topicFields(place.threadId),
      ...(entities.length ? { entities } : {}),
      ...(replyTo
        ? {
            reply_to_message: {
              message_id: replyTo.message_id,
              from: BOT_USER,
              chat: place.chat,
              date: now(),
              text: replyTo.text ?? '…',
              ...topicFields(place.threadId),
            },
          }
        : {}),
    },
  } as Update;
}

/** Pressing a button of a bot message in the place. */
export function pressIn(place: Place, from: Member, data: string, message: { message_id: number }): Update {
  return {
    update_id: updateId++,
    callback_query: {
      id: `cb${updateId}`,
      from,
      chat_instance: `ci${place.chat.id}`,
      data,
      message: { message_id: message.message_id, from: BOT_USER, chat: place.chat, date: now(), text: '…', ...topicFields(place.threadId) },
    },
  } as Update;
}
