/** What one message to one chat came to, as the messenger door reads Telegram's answer. */
export type BroadcastSendOutcome =
  | { kind: 'sent' }
  /** 403: the user blocked the bot, or the chat is gone. */
  | { kind: 'blocked'; reason: string }
  /** 429: nothing was sent; wait this long before any next message. */
  | { kind: 'retry'; afterSeconds: number }
  | { kind: 'failed'; reason: string };

/** Sends a broadcast's text to one chat (the bot door implements it over the Bot API). */
export interface BroadcastSender {
  send(chatId: number, text: string): Promise<BroadcastSendOutcome>;
}
