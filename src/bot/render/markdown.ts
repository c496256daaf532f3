import MarkdownIt from 'markdown-it';
import { RichTextBuilder, type RichText } from './rich-text';

type Token = MarkdownIt.Token;

// CommonMark plus GFM tables and strikethrough. Raw HTML in a model's answer is shown as text (html: false);
// bare URLs are left to Telegram, which links them itself.
const parser = new MarkdownIt('default', { html: false, linkify: false, typographer: false });

const BULLETS = ['•', '◦', '▪'];
const LINK_SCHEMES = /^(https?:\/\/|tg:\/\/)/i;

interface ListState {
  ordered: boolean;
  next: number;
}

interface Cell {
  text: string;
  align: 'left' | 'right' | 'center';
}

function attr(token: Token, name: string): string {
  const value = token.attrGet(name);
  return value === null ? '' : String(value);
}

/** The text of inline tokens without formatting (table cells, image descriptions). */
function inlinePlain(tokens: Token[] | null): string {
  let out = '';
  for (const t of tokens ?? []) {
    if (t.type === 'softbreak' || t.type === 'hardbreak') out += ' ';
    else if (t.type === 'image') out += inlinePlain(t.children) || t.content;
    else out += t.content;
  }
  return out;
}

function alignOf(token: Token): Cell['align'] {
  const style = attr(token, 'style');
  return style.includes('right') ? 'right' : style.includes('center') ? 'center' : 'left';
}

function pad(text: string, width: number, align: Cell['align']): string {
  const room = width - [...text].length;
  if (room <= 0) return text;
  if (align === 'right') return ' '.repeat(room) + text;
  if (align === 'center') return ' '.repeat(Math.floor(room / 2)) + text + ' '.repeat(Math.ceil(room / 2));
  return text + ' '.repeat(room);
}

/** A table as aligned plain-text columns (Telegram has no tables; a monospace block keeps them readable). */
function tableText(rows: Cell[][]): string {
  const columns = Math.max(...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, c) => Math.max(1, ...rows.map((r) => [...(r[c]?.text ?? '')].length)));
  const line = (row: Cell[]) =>
    widths
      .map((w, c) => pad(row[c]?.text ?? '', w, row[c]?.align ?? 'left'))
      .join(' | ')
      .trimEnd();
  const [head, ...body] = rows;
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-+-'), ...body.map(line)].join('\n');
}

/** Renders markdown-it's token stream into Telegram rich text. */
class TelegramRenderer {
  private readonly lists: ListState[] = [];
  private quoteDepth = 0;

  constructor(private readonly out: RichTextBuilder) {}

  private get blockGap(): number {
    return this.lists.length > 0 ? 1 : 2;
  }

  render(tokens: Token[]): void {
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      switch (t.type) {
        case 'paragraph_open':
          this.out.gap(this.blockGap);
          break;
        case 'heading_open':
          this.out.gap(this.blockGap);
          this.out.openEntity('b');
          break;
        case 'heading_close':
          this.out.closeEntity();
          break;
        case 'inline':
          this.inline(t.children ?? []);
          break;
        case 'bullet_list_open':
        case 'ordered_list_open':
          this.out.gap(this.blockGap);
          this.lists.push({ ordered: t.type === 'ordered_list_open', next: Number(attr(t, 'start') || 1) });
          break;
        case 'bullet_list_close':
        case 'ordered_list_close':
          this.lists.pop();
          break;
        case 'list_item_open':
          this.listItem();
          break;
        case 'blockquote_open':
          this.out.gap(this.blockGap);
          // Telegram does not nest quotes: an inner quote continues the outer one.
          if (this.quoteDepth++ === 0) {
            this.out.openEntity('blockquote');
            this.out.containerStart();
          }
          break;
        case 'blockquote_close':
          if (--this.quoteDepth === 0) this.out.closeEntity();
          break;
        case 'fence':
        case 'code_block':
          this.codeBlock(t.content.replace(/\n$/, ''), t.info.trim().split(/\s+/)[0] ?? '');
          break;
        case 'hr':
          this.out.gap(this.blockGap);
          this.out.append('────────');
          break;
        case 'table_open':
          i = this.table(tokens, i);
          break;
        default:
          break;
      }
    }
  }

  private listItem(): void {
    const list = this.lists[this.lists.length - 1];
    const depth = this.lists.length - 1;
    this.out.gap(1);
    const marker = list.ordered ? `${list.next++}.` : BULLETS[Math.min(depth, BULLETS.length - 1)];
    this.out.append(`${'   '.repeat(depth)}${marker} `);
    this.out.containerStart();
  }

  private codeBlock(code: string, language: string): void {
    if (code === '') return;
    this.out.gap(this.blockGap);
    const lang = language.replace(/[^\w+#.-]/g, '');
    this.out.openEntity('pre', lang === '' ? undefined : lang);
    this.out.append(code);
    this.out.closeEntity();
  }

  /** Renders the table starting at `tokens[start]`; returns the index of its `table_close`. */
  private table(tokens: Token[], start: number): number {
    const rows: Cell[][] = [];
    let i = start;
    for (; i < tokens.length && tokens[i].type !== 'table_close'; i++) {
      const t = tokens[i];
      if (t.type === 'tr_open') rows.push([]);
      else if ((t.type === 'th_open' || t.type === 'td_open') && rows.length > 0) {
        rows[rows.length - 1].push({ text: inlinePlain(tokens[i + 1]?.children ?? null).trim(), align: alignOf(t) });
      }
    }
    if (rows.length > 0) this.codeBlock(tableText(rows), '');
    return i;
  }

  private inline(children: Token[]): void {
    const links: { linked: boolean; href: string; at: number }[] = [];
    for (const t of children) {
      switch (t.type) {
        case 'text':
          this.out.append(t.content);
          break;
        case 'softbreak':
        case 'hardbreak':
          this.out.append('\n');
          break;
        case 'strong_open':
          this.out.openEntity('b');
          break;
        case 'em_open':
          this.out.openEntity('i');
          break;
        case 's_open':
          this.out.openEntity('s');
          break;
        case 'strong_close':
        case 'em_close':
        case 's_close':
          this.out.closeEntity();
          break;
        case 'code_inline':
          // Telegram links cannot contain code: inside a link it stays plain text.
          if (this.out.isOpen('a')) {
            this.out.append(t.content);
          } else {
            this.out.openEntity('code');
            this.out.append(t.content);
            this.out.closeEntity();
          }
          break;
        case 'link_open': {
          const href = attr(t, 'href');
          const linked = LINK_SCHEMES.test(href) && !this.out.isOpen('a');
          if (linked) this.out.openEntity('a', href);
          links.push({ linked, href, at: this.out.length });
          break;
        }
        case 'link_close': {
          const link = links.pop();
          // `[](url)`: the address is the only text there is.
          if (link && this.out.length === link.at) this.out.append(link.href);
          if (link?.linked) this.out.closeEntity();
          break;
        }
        case 'image': {
          const src = attr(t, 'src');
          const alt = inlinePlain(t.children) || t.content;
          if (LINK_SCHEMES.test(src) && !this.out.isOpen('a')) {
            this.out.openEntity('a', src);
            this.out.append(alt || src);
            this.out.closeEntity();
          } else {
            this.out.append(alt);
          }
          break;
        }
        default:
          this.out.append(t.content);
          break;
      }
    }
  }
}

/**
 * Appends a model's Markdown answer as Telegram rich text: bold, italic, strikethrough, inline code, code blocks
 * with their language, links, lists (markers as text), quotes, headings (bold) and tables (monospace columns).
 * Unfinished syntax while an answer streams stays balanced: an open fence runs to the end, an unclosed `**` is
 * shown as typed.
 */
export function appendMarkdown(out: RichTextBuilder, markdown: string): void {
  new TelegramRenderer(out).render(parser.parse(markdown, {}));
}

export function renderMarkdown(markdown: string): RichText {
  const out = new RichTextBuilder();
  appendMarkdown(out, markdown);
  return out.build();
}
