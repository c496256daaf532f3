import { toHtml, toPlain, type RichText } from './rich-text';

/**
 * Where text of at most `max` UTF-16 units (Telegram's measure) per piece is cut: the end offset of every
 * piece. A cut prefers a line break, else a space, in the last fifth of a piece and never splits a surrogate
 * pair. A piece's end depends only on the text before it, so pieces already sent stay the same while the text
 * grows.
 */
export function cutPoints(text: string, max: number): number[] {
  const cuts: number[] = [];
  let from = 0;
  while (text.length - from > max) {
    let cut = from + max;
    const windowStart = from + Math.floor(max * 0.8);
    const window = text.slice(windowStart, from + max);
    const nl = window.lastIndexOf('\n');
    const at = nl >= 0 ? nl : window.lastIndexOf(' ');
    if (at >= 0) cut = windowStart + at + 1;
    const code = text.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    cuts.push(cut);
    from = cut;
  }
  cuts.push(text.length);
  return cuts;
}

/** Plain text in pieces of at most `max` UTF-16 units (see cutPoints). */
export function splitMessage(text: string, max: number): string[] {
  let from = 0;
  return cutPoints(text, max).map((cut) => text.slice(from, (from = cut)));
}

/** One Telegram message of a rendered answer: its HTML, and the same text unformatted for when Telegram refuses it. */
export interface MessagePiece {
  html: string;
  plain: string;
}

/**
 * Rendered text in messages of at most `max` visible UTF-16 units each. Formatting that crosses a cut is closed
 * at the end of one piece and reopened at the start of the next (a long code block continues as a code block of
 * the same language). Pieces with nothing visible are left out: Telegram refuses empty messages.
 */
export function splitRichText(rich: RichText, max: number): MessagePiece[] {
  const pieces: MessagePiece[] = [];
  let from = 0;
  for (const cut of cutPoints(rich.text, max)) {
    if (rich.text.slice(from, cut).trim() !== '') pieces.push({ html: toHtml(rich, from, cut), plain: toPlain(rich, from, cut, max) });
    from = cut;
  }
  return pieces;
}
