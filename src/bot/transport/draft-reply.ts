import { GrammyError, type Api } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { Logger } from '../../logger';
import { renderAnswer, type MessagePiece } from '../render';

/** What a streamed chat answer offers its writer, whether drafted (private chats) or edited in place (groups). */
export interface AnswerReply {
  /** The answer so far, as the model wrote it (Markdown). */
  readonly text: string;
  /** Message ids of the answer, in order (once it is out). */
  readonly messageIds: number[];
  start(): Promise<void>;
  append(delta: string): void;
  /** Writes the final state (a footer of plain text, buttons under the last message) and waits until it is on Telegram. */
  finish(footer?: string, keyboard?: InlineKeyboardMarkup): Promise<void>;
}

export interface DraftReplyOptions {
  /** Minimum pause between two drafts while the model streams. */
  intervalMs: number;
  /** Longest text of one message or draft (Telegram: 4096, counted after formatting is parsed). */
  maxLength: number;
  /** The draft's id (non-zero): Telegram names it in the stop update when the user presses stop. */
  draftId: number;
  replyTo?: number;
  /** The topic of a private chat with topics. */
  threadId?: number;
  log?: Logger;
}

/** The Bot API does not know sendMessageDraft (an older or self-hosted server answers 404): edit instead. */
export class DraftsUnavailableError extends Error {
  constructor(readonly refusal: unknown) {
    super('sendMessageDraft is not available');
  }
}

function retryAfterOf(err: unknown): number | undefined {
  return err instanceof GrammyError && err.error_code === 429 ? (err.parameters.retry_after ?? 1) : undefined;
}

function isFormattingRefused(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 400 && /can't parse entities/i.test(err.description);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A chat answer in a private chat as Telegram's drafts show it (`sendMessageDraft`): an animated preview that grows
 * while the model streams, with the stop button (`can_stop`), then the final message(s) with `sendMessage` (a draft
 * is only a preview; sending the message replaces it). The draft shows the answer's last 4096 characters; a longer
 * answer arrives as several messages at the end. Drafts are paced and honour flood control; a draft Telegram refuses
 * is skipped, never the final answer.
 */
export class DraftReply implements AnswerReply {
  private body = '';
  private readonly sent: number[] = [];
  private done = false;
  private dirty = false;
  private shown?: string;
  /** Telegram refused the formatting once: drafts go out as plain text. */
  private plain = false;
  /** Drafts stopped working mid-answer: the final message still goes out. */
  private broken = false;
  private nextWriteAt = 0;
  private retryAt = 0;
  private wake?: () => void;
  private interrupt?: () => void;
  private writer?: Promise<void>;

  constructor(
    private readonly api: Api,
    private readonly chatId: number,
    private readonly options: DraftReplyOptions,
  ) {}

  get text(): string {
    return this.body;
  }

  get messageIds(): number[] {
    return [...this.sent];
  }

  /**
   * The "Thinking…" placeholder (an empty draft) with the stop button. @throws DraftsUnavailableError (no such method),
   * or the Bot API's refusal (the user blocked the bot…)
   */
  async start(): Promise<void> {
    try {
      await this.draft({ html: '', plain: '' });
    } catch (err) {
      const retryAfter = retryAfterOf(err);
      if (retryAfter === undefined) throw err instanceof GrammyError && err.error_code === 404 ? new DraftsUnavailableError(err) : err;
      this.retryAt = Date.now() + retryAfter * 1000;
    }
    this.nextWriteAt = Date.now() + this.options.intervalMs;
    this.writer = this.run();
  }

  append(delta: string): void {
    if (!delta) return;
    this.body += delta;
    this.dirty = true;
    this.wake?.();
  }

  async finish(footer?: string, keyboard?: InlineKeyboardMarkup): Promise<void> {
    this.done = true;
    this.wake?.();
    this.interrupt?.();
    await this.writer;
    const pieces = renderAnswer(this.body, { footer, maxLength: this.options.maxLength });
    for (const [i, piece] of pieces.entries()) {
      const last = i === pieces.length - 1;
      await this.send(piece, {
        ...(i === 0 && this.options.replyTo
          ? { reply_parameters: { message_id: this.options.replyTo, allow_sending_without_reply: true } }
          : {}),
        ...(last && keyboard ? { reply_markup: keyboard } : {}),
      });
    }
  }

  private threadParams(): { message_thread_id?: number } {
    return this.options.threadId !== undefined ? { message_thread_id: this.options.threadId } : {};
  }

  private async draft(piece: MessagePiece): Promise<void> {
    const text = this.plain ? piece.plain : piece.html;
    await this.api.sendMessageDraft(this.chatId, this.options.draftId, text, {
      ...(this.plain || text === '' ? {} : { parse_mode: 'HTML' as const }),
      ...this.threadParams(),
      can_stop: true,
      keep_on_stop: true,
    });
    this.shown = text;
  }

  /** A final message: formatting refused falls back to plain text, flood control is waited out. */
  private async send(piece: MessagePiece, extra: Record<string, unknown>): Promise<void> {
    let plain = false;
    for (let attempt = 0; ; attempt++) {
      try {
        const message = await this.api.sendMessage(this.chatId, plain ? piece.plain : piece.html, {
          ...(plain ? {} : { parse_mode: 'HTML' as const }),
          ...this.threadParams(),
          ...extra,
        });
        this.sent.push(message.message_id);
        return;
      } catch (err) {
        const retryAfter = retryAfterOf(err);
        if (retryAfter !== undefined && attempt < 3) {
          await sleep(retryAfter * 1000);
          continue;
        }
        if (!plain && isFormattingRefused(err)) {
          this.options.log?.warn({ err, chatId: this.chatId }, 'answer: Telegram refused the formatting; sending plain text');
          plain = true;
          continue;
        }
        throw err;
      }
    }
  }

  private waitMs(): number {
    return Math.max(this.retryAt, this.nextWriteAt) - Date.now();
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.interrupt = undefined;
        resolve();
      }, ms);
      this.interrupt = () => {
        clearTimeout(timer);
        this.interrupt = undefined;
        resolve();
      };
    });
  }

  /** Drafts while the model streams; ends with the stream (the final text goes out as messages). */
  private async run(): Promise<void> {
    while (!this.done && !this.broken) {
      if (!this.dirty) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      for (let wait = this.waitMs(); wait > 0 && !this.done; wait = this.waitMs()) await this.pause(wait);
      if (this.done) return;
      this.dirty = false;
      const pieces = renderAnswer(this.body, { maxLength: this.options.maxLength });
      const tail = pieces.at(-1);
      if (!tail || (this.plain ? tail.plain : tail.html) === this.shown) continue;
      try {
        await this.draft(tail);
      } catch (err) {
        const retryAfter = retryAfterOf(err);
        if (retryAfter !== undefined) {
          this.retryAt = Date.now() + retryAfter * 1000;
          this.dirty = true;
        } else if (!this.plain && isFormattingRefused(err)) {
          this.plain = true;
          this.dirty = true;
        } else {
          this.options.log?.warn({ err, chatId: this.chatId }, 'answer: a draft failed; the final message follows');
          this.broken = true;
        }
      }
      this.nextWriteAt = Math.max(this.nextWriteAt, Date.now() + this.options.intervalMs);
    }
  }
}
