import { Api, GrammyError } from 'grammy';
import type { BroadcastSender, BroadcastSendOutcome } from '../../core/broadcasts/ports';

/** A send that has not answered in this long is given up (and, since it may have arrived, not sent again). */
const SEND_TIMEOUT_SECONDS = 30;

/**
 * Broadcast messages over the Bot API. A client of its own, without the bot's auto-retry: the runner honours
 * `retry_after` itself, for every message at once. The text goes out as plain text, exactly as the operator wrote it.
 */
export class TelegramBroadcastSender implements BroadcastSender {
  private readonly api: Api;

  constructor(token: string, apiRoot: string) {
    this.api = new Api(token, { apiRoot, timeoutSeconds: SEND_TIMEOUT_SECONDS });
  }

  async send(chatId: number, text: string): Promise<BroadcastSendOutcome> {
    try {
      await this.api.sendMessage(chatId, text, { link_preview_options: { is_disabled: true } });
      return { kind: 'sent' };
    } catch (err) {
      if (!(err instanceof GrammyError)) return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) };
      if (err.error_code === 429) return { kind: 'retry', afterSeconds: err.parameters.retry_after ?? 5 };
      // 403: blocked by the user, or the user is deactivated; 400 chat not found: the chat is gone.
      if (err.error_code === 403 || /chat not found/i.test(err.description)) return { kind: 'blocked', reason: err.description };
      return { kind: 'failed', reason: err.description };
    }
  }
}
