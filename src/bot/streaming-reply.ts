import { GrammyError, type Api } from 'grammy';
import type { Logger } from '../logger';

export interface StreamingReplyOptions {
  /** Minimum pause between two Bot API writes of this reply (Telegram allows about one edit per second per chat). */
  intervalMs: number;
  /** Longest text of one message (Telegram: 4096). */
  maxLength: number;
  /** Shown until the first text arrives. */
  placeholder: string;
  replyTo?: number;
  log?: Logger;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Splits text into pieces of at most `max` UTF-16 units (Telegram's measure), preferring a line break or a space
 * in the last fifth of a piece and never cutting a surrogate pair. A piece's end depends only on the text before
 * it, so pieces already sent stay the same while the text grows.
 */
export function splitMessage(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = max;
    const window = rest.slice(Math.floor(max * 0.8), max);
    const nl = window.lastIndexOf('\n');
    const sp = window.lastIndexOf(' ');
    const at = nl >= 0 ? nl : sp;
    if (at >= 0) cut = Math.floor(max * 0.8) + at + 1;
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  pieces.push(rest);
  return pieces;
}

function retryAfterOf(err: unknown): number | undefined {
  return err instanceof GrammyError && err.error_code === 429 ? (err.parameters.retry_after ?? 1) : undefined;
}

function isNotModified(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 400 && /message is not modified/i.test(err.description);
}

/**
 * A chat reply that grows while the model streams: one message edited at a measured pace, continued in a new
 * message past the length limit. Text arrives through `append` at any speed; a separate writer loop sends the
 * latest state at most once per interval, so a slow or rate-limited Bot API (429 with `retry_after`) never
 * holds up reading the stream.
 */
export class StreamingReply {
  private body = '';
  private footer = '';
  private readonly sent: { id: number; text: string }[] = [];
  private done = false;
  private nextWriteAt = 0;
  private wake?: () => void;
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

  get text(): string {
    return this.body;
  }

  async start(): Promise<void> {
    const message = await this.api.sendMessage(this.chatId, this.options.placeholder, {
      ...(this.options.replyTo ? { reply_parameters: { message_id: this.options.replyTo, allow_sending_without_reply: true } } : {}),
    });
    this.sent.push({ id: message.message_id, text: this.options.placeholder });
    this.nextWriteAt = Date.now() + this.options.intervalMs;
    this.writer = this.run();
  }

  append(delta: string): void {
    if (!delta) return;
    this.body += delta;
    this.wake?.();
  }

  /** Writes the final state (with an optional footer line) and waits until it is on Telegram. */
  async finish(footer?: string): Promise<void> {
    this.footer = footer ?? '';
    this.done = true;
    this.wake?.();
    await this.writer;
  }

  private target(): string[] {
    const text = [this.body.trim() === '' ? '' : this.body, this.footer].filter((s) => s !== '').join('\n\n');
    return splitMessage(text === '' ? this.options.placeholder : text, this.options.maxLength);
  }

  private inSync(target: string[]): boolean {
    return target.length <= this.sent.length && target.every((text, i) => this.sent[i].text === text);
  }

  private async run(): Promise<void> {
    for (;;) {
      const pending = !this.inSync(this.target());
      if (!pending) {
        if (this.done) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      const wait = this.nextWriteAt - Date.now();
      if (wait > 0) await sleep(wait);
      await this.write(this.target());
      this.nextWriteAt = Math.max(this.nextWriteAt, Date.now() + this.options.intervalMs);
    }
  }

  private async write(target: string[]): Promise<void> {
    for (let i = 0; i < target.length; i++) {
      const current = this.sent[i];
      if (current && current.text === target[i]) continue;
      try {
        if (current) {
          await this.api.editMessageText(this.chatId, current.id, target[i]);
          current.text = target[i];
        } else {
          const message = await this.api.sendMessage(this.chatId, target[i]);
          this.sent.push({ id: message.message_id, text: target[i] });
        }
      } catch (err) {
        const retryAfter = retryAfterOf(err);
        if (retryAfter !== undefined) {
          // Flood control: try again (with the then-latest text) once Telegram allows it.
          this.nextWriteAt = Date.now() + retryAfter * 1000;
          return;
        }
        if (current && isNotModified(err)) {
          current.text = target[i];
          continue;
        }
        this.options.log?.warn({ err, chatId: this.chatId }, 'streamed reply: a write failed; giving up on this part');
        if (current) current.text = target[i];
        else this.sent.push({ id: -1, text: target[i] });
      }
    }
  }
}
