import type { Update } from 'grammy/types';
import { BOT_USER } from './fake-telegram';

// Realistic Telegram updates from one private-chat user, shaped as the Bot API delivers them.

let updateId = 500_000;
let messageId = 1;

export interface TestUserOptions {
  firstName?: string;
  lastName?: string;
  username?: string;
  languageCode?: string;
}

export class TestUser {
  constructor(
    readonly id: number,
    readonly options: TestUserOptions = {},
  ) {}

  get from() {
    return {
      id: this.id,
      is_bot: false as const,
      first_name: this.options.firstName ?? 'Alice',
      ...(this.options.lastName ? { last_name: this.options.lastName } : {}),
      ...(this.options.username ? { username: this.options.username } : {}),
      ...(this.options.languageCode ? { language_code: this.options.languageCode } : {}),
    };
  }

  get chat() {
    return {
      id: this.id,
      type: 'private' as const,
      first_name: this.options.firstName ?? 'Alice',
      ...(this.options.username ? { username: this.options.username } : {}),
    };
  }

  private base() {
    return { message_id: messageId++, from: this.from, chat: this.chat, date: Math.floor(Date.now() / 1000) };
  }

  /** A text message; a leading /command gets its bot_command entity, as Telegram sends it. */
  text(text: string): Update {
    const command = /^\/[A-Za-z0-9_]+(@\w+)?/.exec(text);
    return {
      update_id: updateId++,
      message: {
        ...this.base(),
        text,
        ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {}),
      },
    };
  }

  /** A text message replying to an earlier message (e.g. the `message` of a photo update). */
  replyText(text: string, to: NonNullable<Update['message']>): Update {
    return { update_id: updateId++, message: { ...this.base(), text, reply_to_message: { ...to, reply_to_message: undefined } } };
  }

  photo(file: { file_id: string; file_unique_id: string; file_size: number }, caption?: string): Update {
    return {
      update_id: updateId++,
      message: {
        ...this.base(),
        photo: [
          { file_id: `${file.file_id}-thumb`, file_unique_id: `${file.file_unique_id}t`, file_size: 1200, width: 90, height: 90 },
          { ...file, width: 512, height: 512 },
        ],
        ...(caption ? { caption } : {}),
      },
    };
  }

  /** An image sent as a file (keeps its format and transparency, unlike a photo). */
  document(file: { file_id: string; file_unique_id: string; file_size: number }, mime: string, name: string, caption?: string): Update {
    return {
      update_id: updateId++,
      message: { ...this.base(), document: { ...file, mime_type: mime, file_name: name }, ...(caption ? { caption } : {}) },
    };
  }

  voice(file: { file_id: string; file_unique_id: string; file_size: number }, duration = 3): Update {
    return {
      update_id: updateId++,
      message: { ...this.base(), voice: { ...file, duration, mime_type: 'audio/ogg' } },
    };
  }

  /** Telegram asks the bot to confirm a checkout (answer within 10 s). */
  preCheckout(payload: string, totalAmount: number, currency = 'XTR'): Update {
    return {
      update_id: updateId++,
      pre_checkout_query: { id: `pcq${updateId}`, from: this.from, currency, total_amount: totalAmount, invoice_payload: payload },
    };
  }

  /** The service message of a completed payment (a subscription's first payment or renewal sets the recurring flags). */
  successfulPayment(payload: string, totalAmount: number, chargeId: string, subscription?: { first: boolean; expiresAt: number }): Update {
    return {
      update_id: updateId++,
      message: {
        ...this.base(),
        successful_payment: {
          currency: 'XTR',
          total_amount: totalAmount,
          invoice_payload: payload,
          telegram_payment_charge_id: chargeId,
          provider_payment_charge_id: '',
          ...(subscription
            ? {
                is_recurring: true as const,
                subscription_expiration_date: subscription.expiresAt,
                ...(subscription.first ? { is_first_recurring: true as const } : {}),
              }
            : {}),
        },
      },
    };
  }

  /** Pressing an inline button of a message the bot sent (a text message, or a photo or file with its caption). */
  press(
    data: string,
    message: { message_id: number; text?: string; photo?: unknown[]; document?: Record<string, unknown>; caption?: string },
  ): Update {
    return {
      update_id: updateId++,
      callback_query: {
        id: String(updateId * 7),
        from: this.from,
        chat_instance: `ci${this.id}`,
        data,
        message: {
          message_id: message.message_id,
          from: BOT_USER,
          chat: this.chat,
          date: Math.floor(Date.now() / 1000),
          ...(message.photo || message.document
            ? { ...(message.photo ? { photo: message.photo } : { document: message.document }), caption: message.caption }
            : { text: message.text ?? '…' }),
        },
      },
    } as Update;
  }
}
