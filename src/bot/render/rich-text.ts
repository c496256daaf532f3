/** Telegram formatting kinds the renderer uses (HTML parse mode tags). */
export type EntityKind = 'b' | 'i' | 's' | 'code' | 'pre' | 'a' | 'blockquote';

/** A formatted range of the visible text, in UTF-16 offsets (Telegram's measure). */
export interface Entity {
  kind: EntityKind;
  start: number;
  end: number;
  /** `pre`: the code's language; `a`: the link's URL. */
  value?: string;
}

/**
 * Visible text plus properly nested formatting ranges, in opening order (start ascending, outer before inner).
 * This is what Telegram itself keeps of an HTML message, so any slice of it renders to balanced HTML.
 */
export interface RichText {
  text: string;
  entities: Entity[];
}

/**
 * Builds rich text block by block. Blocks ask for line breaks before them (`gap`); the breaks are written only
 * when more text follows, and never right at the start of a container (a quote, a list item).
 */
export class RichTextBuilder {
  private text = '';
  private readonly entities: Entity[] = [];
  /** Open ranges; null for a kind that was already open (no nesting of the same kind). */
  private readonly open: (Entity | null)[] = [];
  private pendingBreaks = 0;
  private atContainerStart = true;

  get length(): number {
    return this.text.length;
  }

  isOpen(kind: EntityKind): boolean {
    return this.open.some((e) => e?.kind === kind);
  }

  gap(lines: number): void {
    if (!this.atContainerStart) this.pendingBreaks = Math.max(this.pendingBreaks, lines);
  }

  /** The next block is the first of a container: no gap before it. */
  containerStart(): void {
    this.pendingBreaks = 0;
    this.atContainerStart = true;
  }

  append(text: string): void {
    if (text === '') return;
    this.flush();
    this.text += text;
    this.atContainerStart = false;
  }

  openEntity(kind: EntityKind, value?: string): void {
    this.flush();
    if (this.isOpen(kind)) {
      this.open.push(null);
      return;
    }
    const entity: Entity = { kind, start: this.text.length, end: -1, ...(value !== undefined ? { value } : {}) };
    this.entities.push(entity);
    this.open.push(entity);
  }

  closeEntity(): void {
    const entity = this.open.pop();
    if (entity) entity.end = this.text.length;
  }

  build(): RichText {
    while (this.open.length > 0) this.closeEntity();
    return { text: this.text, entities: this.entities.filter((e) => e.end > e.start) };
  }

  private flush(): void {
    if (this.pendingBreaks > 0 && this.text !== '') this.text += '\n'.repeat(this.pendingBreaks);
    this.pendingBreaks = 0;
  }
}

/** Escapes text for Telegram's HTML parse mode (which knows only &lt; &gt; &amp; &quot;). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>]/g, (ch) => (ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : '&gt;'));
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, '&quot;');
}

function openTag(e: Entity): string {
  switch (e.kind) {
    case 'pre':
      return e.value ? `<pre><code class="language-${escapeAttribute(e.value)}">` : '<pre>';
    case 'a':
      return `<a href="${escapeAttribute(e.value ?? '')}">`;
    default:
      return `<${e.kind}>`;
  }
}

function closeTag(e: Entity): string {
  if (e.kind === 'pre') return e.value ? '</code></pre>' : '</pre>';
  return `</${e.kind}>`;
}

/**
 * Telegram HTML of the visible text from `from` to `to`: ranges that cross either end are closed at the end of
 * the slice and reopened at its start, so every slice is balanced on its own.
 */
export function toHtml(rich: RichText, from = 0, to = rich.text.length): string {
  let out = '';
  let pos = from;
  const stack: Entity[] = [];
  const emitTo = (at: number) => {
    out += escapeHtml(rich.text.slice(pos, at));
    pos = at;
  };
  const closeUntil = (at: number) => {
    while (stack.length > 0 && Math.min(stack[stack.length - 1].end, to) <= at) {
      const top = stack.pop()!;
      emitTo(Math.min(top.end, to));
      out += closeTag(top);
    }
  };
  for (const e of rich.entities) {
    if (e.start >= to || e.end <= from) continue;
    const start = Math.max(e.start, from);
    closeUntil(start);
    emitTo(start);
    out += openTag(e);
    stack.push(e);
  }
  closeUntil(to);
  emitTo(to);
  return out;
}

/**
 * The same slice without formatting, for when Telegram refuses the HTML: link addresses are written after their
 * text (as far as they fit within `max`), so nothing of the answer is lost.
 */
export function toPlain(rich: RichText, from: number, to: number, max: number): string {
  let budget = max - (to - from);
  let out = '';
  let pos = from;
  const links = rich.entities.filter((e) => e.kind === 'a' && e.end > from && e.end <= to).sort((a, b) => a.end - b.end);
  for (const link of links) {
    const href = link.value ?? '';
    if (href === rich.text.slice(link.start, link.end)) continue;
    const note = ` (${href})`;
    if (note.length > budget) continue;
    budget -= note.length;
    out += rich.text.slice(pos, link.end) + note;
    pos = link.end;
  }
  return out + rich.text.slice(pos, to);
}
