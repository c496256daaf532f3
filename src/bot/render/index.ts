import { appendMarkdown } from './markdown';
import { RichTextBuilder } from './rich-text';
import { splitRichText, type MessagePiece } from './split';

export { escapeHtml } from './rich-text';
export { cutPoints, splitMessage, type MessagePiece } from './split';

/**
 * A model's Markdown answer as Telegram messages (HTML parse mode), with an optional footer of plain text after
 * a blank line. Empty when nothing would be visible.
 */
export function renderAnswer(markdown: string, options: { footer?: string; maxLength: number }): MessagePiece[] {
  const out = new RichTextBuilder();
  appendMarkdown(out, markdown);
  if (options.footer) {
    out.gap(2);
    out.append(options.footer);
  }
  return splitRichText(out.build(), options.maxLength);
}
