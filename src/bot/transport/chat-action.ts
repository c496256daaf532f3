import type { Api } from 'grammy';
import type { Category } from '../../core/catalog/types';
import type { Logger } from '../../logger';

export type ChatAction = Parameters<Api['sendChatAction']>[1];

/** Telegram shows a chat action for about 5 s (or until the bot's next message): repeat a little sooner. */
export const CHAT_ACTION_REPEAT_MS = 4_500;

export interface ChatActionOptions {
  repeatMs?: number;
  log?: Logger;
  /** The topic the work is for (the action shows there). */
  threadId?: number;
}

export interface ChatActionPulse {
  stop(): void;
}

/**
 * Shows "typing…" / "sending a photo…" in the chat until stopped, repeating the action while the work goes on.
 * Best effort: a refused action never fails the work it decorates.
 */
export function keepChatAction(api: Api, chatId: number, action: ChatAction, options: ChatActionOptions = {}): ChatActionPulse {
  let stopped = false;
  const topic = options.threadId !== undefined ? { message_thread_id: options.threadId } : {};
  const send = () => {
    if (stopped) return;
    api.sendChatAction(chatId, action, topic).catch((err: unknown) => options.log?.debug({ err, chatId, action }, 'chat action not sent'));
  };
  send();
  const timer = setInterval(send, options.repeatMs ?? CHAT_ACTION_REPEAT_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** Runs `work` with the chat action shown while it lasts. */
export async function withChatAction<T>(
  api: Api,
  chatId: number,
  action: ChatAction,
  work: () => Promise<T>,
  options: ChatActionOptions = {},
): Promise<T> {
  const pulse = keepChatAction(api, chatId, action, options);
  try {
    return await work();
  } finally {
    pulse.stop();
  }
}

/** What the chat shows while a model of this category works: the kind of message its result arrives as. */
export function actionForCategory(category: Category): ChatAction {
  switch (category) {
    case 'image':
    case 'tool':
      return 'upload_photo';
    case 'video':
      return 'upload_video';
    case 'tts':
    case 'music':
      return 'upload_voice';
    default:
      return 'typing';
  }
}

/** What the chat shows while the bot uploads a file of this type. */
export function actionForUpload(mime: string): ChatAction {
  if (mime.startsWith('image/')) return 'upload_photo';
  if (mime.startsWith('video/')) return 'upload_video';
  if (mime.startsWith('audio/')) return 'upload_voice';
  return 'upload_document';
}
