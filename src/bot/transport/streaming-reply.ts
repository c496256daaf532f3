import { GrammyError, type Api } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { Logger } from '../../logger';
import { escapeHtml, renderAnswer, type MessagePiece } from '../render';
import type { AnswerReply } from './draft-reply';

export { splitMessage } from '../render';

export interface StreamingReplyOptions {
  /** Minimum pause between two Bot API writes of this reply while it streams (Telegram allows about one edit per second per chat). */
  intervalMs: number;
  /** Longest text of one message (Telegram: 4096, counted after formatting is parsed). */
  maxLength: number;
  /** Shown until the first text arrives. */
  placeholder: string;
  replyTo?: number;
  /** Buttons under the newest message while the answer streams (a Stop button); replaced by the final buttons. */
  liveKeyboard?: InlineKeyboardMarkup;
  log?: Logger;
}

function retryAfterOf(err: unknown): number | undefined {
  return err instanceof GrammyError && err.error_code === 429 ? (err.parameters.retry_after ?? 1) : undefined;
}

function isNotModified(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 400 && /message is not modified/i.test(err.description);
}

function isFormattingRefused(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 400 && /can't parse entities/i.test(err.description);
}

interface SentMessage {
  id: number;
  /** What the message shows: HTML, or plain text once Telegram refused its formatting. */
  content: string;
  plain: boolean;
  /** The buttons it shows (JSON), if any. */
  markup?: string;
}

type WriteOutcome = 'written' | 'flood-wait' | 'failed';

/**
 * A chat reply that grows while the model streams: one message edited at a measured pace, continued in a new
 * message past the length limit. The model's Markdown is rendered to Telegram HTML on every write (the whole
 * text, so unfinished syntax stays balanced), and a part whose formatting Telegram refuses is written again as
 * plain text. Text arrives through `append` at any speed; a separate writer loop sends the latest state at most
 * once per interval, so a slow or rate-limited Bot API (429 with `retry_after`) never holds up reading the
 * stream. Once the stream has ended, the final text goes out at once, waiting only for a flood-control pause.
 */
export class StreamingReply implements AnswerReply {
  private body = '';
  private footer = '';
  /** Buttons under the final message (e.g. retry), sent with its final write. */
  private keyboard?: InlineKeyboardMarkup;
  private readonly sent: SentMessage[] = [];
  private done = false;
  /** Text changed since the last write round. */
  private dirty = false;
  /** Pacing while the model streams. */
  private nextWriteAt = 0;
  /** Flood control: no write before this time, even for the final text. */
  private retryAt = 0;
  private wake?: () => void;
  private interrupt?: () => void;
  private writer?: Promise<void>;

  constructor(
    private readonly api: Api,
    private readonly chatId: number,
    private readonly options: StreamingReplyOptions,
  ) {}

  /** Message ids of the reply, in order. */
  get messageIds(): number[] {
    return this.sent.map((m) => m.id);
  }

  /** The answer so far, as the model wrote it (Markdown). */
  get text(): string {
    return this.body;
  }

  async start(): Promise<void> {
    const html = escapeHtml(this.options.placeholder);
    const live = this.options.liveKeyboard;
    const message = await this.api.sendMessage(this.chatId, html, {
      parse_mode: 'HTML',
      ...(this.options.replyTo ? { reply_parameters: { message_id: this.options.replyTo, allow_sending_without_reply: true } } : {}),
      ...(live ? { reply_markup: live } : {}),
    });
    this.sent.push({ id: message.message_id, content: html, plain: false, markup: live ? JSON.stringify(live) : undefined });
    this.nextWriteAt = Date.now() + this.options.intervalMs;
    this.writer = this.run();
  }

  append(delta: string): void {
    if (!delta) return;
    this.body += delta;
    this.dirty = true;
    this.wake?.();
  }

  /**
   * Writes the final state (with an optional footer of plain text, and buttons under the last message) at once and
   * waits until it is on Telegram.
   */
  async finish(footer?: string, keyboard?: InlineKeyboardMarkup): Promise<void> {
    this.footer = footer ?? '';
    this.keyboard = keyboard;
    this.done = true;
    this.dirty = true;
    this.wake?.();
    this.interrupt?.();
    await this.writer;
  }

  private target(): MessagePiece[] {
    const pieces = renderAnswer(this.body, { footer: this.footer, maxLength: this.options.maxLength });
    return pieces.length > 0 ? pieces : [{ html: escapeHtml(this.options.placeholder), plain: this.options.placeholder }];
  }

  /** The buttons the piece should show now: the live ones under the newest piece while streaming, the final ones after. */
  private markupFor(index: number, count: number): InlineKeyboardMarkup | undefined {
    if (index !== count - 1) return undefined;
    return this.done ? this.keyboard : this.options.liveKeyboard;
  }

  private shows(message: SentMessage | undefined, piece: MessagePiece, markup: InlineKeyboardMarkup | undefined): boolean {
    return (
      message !== undefined &&
      message.content === (message.plain ? piece.plain : piece.html) &&
      message.markup === (markup ? JSON.stringify(markup) : undefined)
    );
  }

  private waitMs(): number {
    return Math.max(this.retryAt, this.done ? 0 : this.nextWriteAt) - Date.now();
  }

  /** Sleeps up to `ms`; the end of the stream cuts the pause short. */
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

  private async run(): Promise<void> {
    for (;;) {
      if (!this.dirty) {
        if (this.done) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      for (let wait = this.waitMs(); wait > 0; wait = this.waitMs()) await this.pause(wait);
      // Rendered once per write round, not per delta: the text is read again only when it can be sent.
      this.dirty = false;
      const target = this.target();
      const inSync =
        target.every((piece, i) => this.shows(this.sent[i], piece, this.markupFor(i, target.length))) &&
        (!this.done || this.sent.length <= target.length);
      if (inSync) continue;
      await this.write(target);
      this.nextWriteAt = Math.max(this.nextWriteAt, Date.now() + this.options.intervalMs);
    }
  }

  private async write(target: MessagePiece[]): Promise<void> {
    for (let i = 0; i < target.length; i++) {
      const markup = this.markupFor(i, target.length);
      if (this.shows(this.sent[i], target[i], markup)) continue;
      if ((await this.writePiece(i, target[i], markup)) === 'flood-wait') return;
    }
    // Rendering can make the final text shorter than an earlier state (a table laid out once its header row is
    // complete): messages past the end would repeat text.
    if (this.done) for (const extra of this.sent.splice(target.length)) await this.remove(extra);
  }

  private async remove(message: SentMessage): Promise<void> {
    if (message.id < 0) return;
    await this.api.deleteMessage(this.chatId, message.id).catch((err: unknown) => {
      this.options.log?.warn({ err, chatId: this.chatId }, 'streamed reply: a surplus message could not be deleted');
    });
  }

  private async writePiece(index: number, piece: MessagePiece, markup: InlineKeyboardMarkup | undefined): Promise<WriteOutcome> {
    const current = this.sent[index] as SentMessage | undefined;
    let plain = current?.plain ?? false;
    const shown = markup ? JSON.stringify(markup) : undefined;
    for (;;) {
      const text = plain ? piece.plain : piece.html;
      // An edit without reply_markup takes the message's buttons away (the Stop button once the answer is complete).
      const options = {
        ...(plain ? {} : { parse_mode: 'HTML' as const }),
        ...(markup ? { reply_markup: markup } : {}),
      };
      try {
        if (current) {
          await this.api.editMessageText(this.chatId, current.id, text, options);
          Object.assign(current, { content: text, plain, markup: shown });
        } else {
          const message = await this.api.sendMessage(this.chatId, text, options);
          this.sent.push({ id: message.message_id, content: text, plain, markup: shown });
        }
        return 'written';
      } catch (err) {
        const retryAfter = retryAfterOf(err);
        if (retryAfter !== undefined) {
          // Flood control: try again (with the then-latest text) once Telegram allows it.
          this.retryAt = Date.now() + retryAfter * 1000;
          this.dirty = true;
          return 'flood-wait';
        }
        if (current && isNotModified(err)) {
          Object.assign(current, { content: text, plain, markup: shown });
          return 'written';
        }
        if (!plain && isFormattingRefused(err)) {
          // No answer is lost to formatting: this message shows plain text from now on.
          this.options.log?.warn({ err, chatId: this.chatId }, 'streamed reply: Telegram refused the formatting; sending plain text');
          plain = true;
          continue;
        }
        this.options.log?.warn({ err, chatId: this.chatId }, 'streamed reply: a write failed; giving up on this part');
        if (current) Object.assign(current, { content: text, plain, markup: shown });
        else this.sent.push({ id: -1, content: text, plain, markup: shown });
        return 'failed';
      }
    }
  }
}
