import type { CallbackQueryContext, Composer, Context } from 'grammy';

/** Telegram refuses a button whose callback data is longer than this (in UTF-8 bytes). */
export const CALLBACK_DATA_MAX_BYTES = 64;

/** How one payload type is written into callback data and read back. */
export interface PayloadCodec<P> {
  /** Regular expression source of an encoded payload: no anchors, no capturing groups. */
  readonly pattern: string;
  /** The longest encoded payload, in bytes. */
  readonly maxBytes: number;
  encode(payload: P): string;
  /** undefined when the text is not a payload of this type. */
  decode(text: string): P | undefined;
}

/** A button without a payload: its data is the prefix itself. */
export interface PlainCallback {
  readonly prefix: string;
  readonly data: string;
  readonly maxBytes: number;
}

/** A button with a typed payload: `<prefix>:<payload>`. */
export interface CallbackKind<P> {
  readonly prefix: string;
  readonly maxBytes: number;
  /** Matches this kind's data: `composer.callbackQuery(kind.filter, …)` (or use `onCallback`). */
  readonly filter: RegExp;
  data(payload: P): string;
  parse(data: string | undefined): P | undefined;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function plainCallback(prefix: string): PlainCallback {
  return { prefix, data: prefix, maxBytes: bytes(prefix) };
}

export function callbackKind<P extends string | number | object | null>(prefix: string, codec: PayloadCodec<P>): CallbackKind<P> {
  const head = `${prefix}:`;
  const filter = new RegExp(`^${escapeRegExp(head)}(?:${codec.pattern})$`);
  return {
    prefix,
    maxBytes: bytes(head) + codec.maxBytes,
    filter,
    data(payload) {
      const data = head + codec.encode(payload);
      // A payload that does not fit is a bug in the keyboard that built it, not the user's input.
      if (!filter.test(data) || bytes(data) > CALLBACK_DATA_MAX_BYTES) throw new Error(`Callback payload does not fit ${prefix}: ${data}`);
      return data;
    },
    parse(data) {
      if (data === undefined || !filter.test(data)) return undefined;
      return codec.decode(data.slice(head.length));
    },
  };
}

/** Registers the handler of one kind; data that matches the filter but does not decode is answered and dropped. */
export function onCallback<C extends Context, P extends string | number | object | null>(
  composer: Composer<C>,
  kind: CallbackKind<P>,
  handler: (ctx: CallbackQueryContext<C>, payload: P) => unknown,
): void {
  composer.callbackQuery(kind.filter, async (ctx) => {
    const payload = kind.parse(ctx.callbackQuery.data);
    if (payload === undefined) await ctx.answerCallbackQuery();
    else await handler(ctx, payload);
  });
}

/** One of a fixed set of words. */
export function oneOf<const V extends string>(values: readonly V[]): PayloadCodec<V> {
  return {
    pattern: values.map(escapeRegExp).join('|'),
    maxBytes: Math.max(...values.map(bytes)),
    encode: (value) => value,
    decode: (text) => values.find((v) => v === text),
  };
}

/** Free text of a character class, at most `maxLength` characters (ASCII classes only, so characters are bytes). */
export function token(charClass: string, maxLength: number): PayloadCodec<string> {
  return {
    pattern: `${charClass}{1,${maxLength}}`,
    maxBytes: maxLength,
    encode: (value) => value,
    decode: (text) => text,
  };
}

/** A non-negative integer of up to ten digits (database ids). */
export const integer: PayloadCodec<number> = {
  pattern: '\\d{1,10}',
  maxBytes: 10,
  encode: (value) => String(value),
  decode: (text) => Number(text),
};
