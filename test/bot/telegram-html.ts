// Telegram's HTML parse mode, as the fake Bot API applies it to `text` sent with parse_mode "HTML": the supported
// tags (https://core.telegram.org/bots/api#html-style), the four named character references plus numeric ones,
// the same refusals ("can't parse entities: …") for unsupported or unbalanced tags, and Telegram's trimming of
// white space around a message. On nesting the fake is stricter than Telegram, which silently drops formatting
// it cannot nest (anything inside code, code inside a link, a link inside a link, a quote inside a quote): the
// fake refuses it, so a renderer that would lose formatting fails its tests. Code inside bold or italic, and
// code blocks inside a quote, are valid in Telegram and accepted here.

export interface ParsedEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

export interface ParsedText {
  text: string;
  entities: ParsedEntity[];
}

export class EntityParseError extends Error {}

const TAG_TYPES: Record<string, string> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  'tg-spoiler': 'spoiler',
  span: 'spoiler',
  a: 'text_link',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
  'tg-emoji': 'custom_emoji',
};

interface Open {
  tag: string;
  /** Offset in the parsed text where the tag's content starts. */
  start: number;
  attrs: Record<string, string>;
}

function byteOffset(html: string, index: number): number {
  return Buffer.byteLength(html.slice(0, index));
}

function decodeReference(html: string, i: number): { char: string; next: number } | undefined {
  const m = /^&(lt|gt|amp|quot|#(\d{1,7})|#x([0-9a-f]{1,6}));/i.exec(html.slice(i, i + 12));
  if (!m) return undefined;
  const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };
  const char = m[2] ? String.fromCodePoint(Number(m[2])) : m[3] ? String.fromCodePoint(parseInt(m[3], 16)) : named[m[1].toLowerCase()];
  return { char, next: i + m[0].length };
}

function decodeAll(value: string): string {
  let out = '';
  for (let i = 0; i < value.length;) {
    const ref = value[i] === '&' ? decodeReference(value, i) : undefined;
    out += ref ? ref.char : value[i];
    i = ref ? ref.next : i + 1;
  }
  return out;
}

function readAttributes(html: string, from: number): { attrs: Record<string, string>; end: number } {
  const attrs: Record<string, string> = {};
  const re = /\s*([a-zA-Z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/y;
  let i = from;
  for (;;) {
    while (/\s/.test(html[i] ?? '')) i++;
    if (html[i] === '>') return { attrs, end: i + 1 };
    re.lastIndex = i;
    const m = re.exec(html);
    if (!m) throw new EntityParseError(`Unclosed start tag at byte offset ${byteOffset(html, from)}`);
    attrs[m[1].toLowerCase()] = decodeAll(m[2] ?? m[3] ?? m[4] ?? '');
    i = re.lastIndex;
  }
}

function checkNesting(tag: string, stack: Open[], textLength: number, html: string, at: number): void {
  const parent = stack[stack.length - 1];
  if (!parent) return;
  const inside = (name: string) => stack.some((o) => o.tag === name);
  const languageOfPre = tag === 'code' && parent.tag === 'pre' && textLength === parent.start;
  const codeLike = tag === 'code' || tag === 'pre';
  if (
    parent.tag === 'code' ||
    (parent.tag === 'pre' && !languageOfPre) ||
    (tag === 'pre' && stack.some((o) => o.tag !== 'blockquote')) ||
    (tag === 'blockquote' && stack.length > 0) ||
    (tag === 'a' && inside('a')) ||
    (codeLike && inside('a'))
  ) {
    throw new EntityParseError(`Tag "${tag}" can't be nested in "${parent.tag}" at byte offset ${byteOffset(html, at)}`);
  }
}

/** Parses `html` the way the Bot API does for parse_mode "HTML"; throws EntityParseError with Telegram's wording. */
export function parseTelegramHtml(html: string): ParsedText {
  let text = '';
  const entities: ParsedEntity[] = [];
  const stack: Open[] = [];
  let i = 0;
  while (i < html.length) {
    const ch = html[i];
    if (ch === '&') {
      const ref = decodeReference(html, i);
      text += ref ? ref.char : '&';
      i = ref ? ref.next : i + 1;
      continue;
    }
    if (ch !== '<') {
      text += ch;
      i += 1;
      continue;
    }
    const at = i;
    if (html[i + 1] === '/') {
      const m = /^<\/([a-zA-Z-]*)\s*>/.exec(html.slice(i, i + 40));
      if (!m) throw new EntityParseError(`Unclosed end tag at byte offset ${byteOffset(html, at)}`);
      const name = m[1].toLowerCase();
      const open = stack.pop();
      if (!open) throw new EntityParseError(`Unexpected end tag at byte offset ${byteOffset(html, at)}`);
      if (open.tag !== name)
        throw new EntityParseError(
          `Unmatched end tag at byte offset ${byteOffset(html, at)}, expected "</${open.tag}>", found "</${name}>"`,
        );
      const length = text.length - open.start;
      const pre = stack[stack.length - 1];
      if (name === 'code' && pre?.tag === 'pre') {
        // `<pre><code class="language-x">` names the language of the block.
        const language = /^language-(.+)$/.exec(open.attrs.class ?? '')?.[1];
        if (language) pre.attrs.language = language;
      } else if (length > 0) {
        entities.push({ type: TAG_TYPES[name], offset: open.start, length, ...entityExtras(name, open) });
      }
      i += m[0].length;
      continue;
    }
    const m = /^<([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(i, i + 40));
    const name = m?.[1].toLowerCase() ?? '';
    if (!m || !(name in TAG_TYPES))
      throw new EntityParseError(`Unsupported start tag "${m?.[1] ?? html.slice(i + 1, i + 2)}" at byte offset ${byteOffset(html, at)}`);
    const { attrs, end } = readAttributes(html, i + m[0].length);
    if (name === 'span' && attrs.class !== 'tg-spoiler') throw new EntityParseError('Tag "span" must have class "tg-spoiler"');
    if (name === 'a' && !attrs.href)
      throw new EntityParseError(`Tag "a" must have attribute "href" at byte offset ${byteOffset(html, at)}`);
    checkNesting(name, stack, text.length, html, at);
    stack.push({ tag: name, start: text.length, attrs });
    i = end;
  }
  const unclosed = stack.pop();
  if (unclosed) throw new EntityParseError(`Can't find end tag corresponding to start tag "${unclosed.tag}"`);
  return trim({ text, entities: entities.sort((a, b) => a.offset - b.offset || b.length - a.length) });
}

function entityExtras(name: string, open: Open): Partial<ParsedEntity> {
  if (name === 'a') return { url: open.attrs.href };
  if (name === 'pre' && open.attrs.language) return { language: open.attrs.language };
  return {};
}

/**
 * Telegram drops white space at the end of a message, and spaces and line breaks at its start up to the first
 * formatted range (so a message that starts with a code block keeps the block's indentation).
 */
export function trim(parsed: ParsedText): ParsedText {
  const end = parsed.text.trimEnd().length;
  const firstEntity = Math.min(end, ...parsed.entities.map((e) => e.offset));
  let lead = 0;
  while (lead < firstEntity && (parsed.text[lead] === ' ' || parsed.text[lead] === '\n')) lead++;
  const text = parsed.text.slice(lead, end);
  const entities = parsed.entities
    .map((e) => {
      const start = Math.max(0, e.offset - lead);
      const stop = Math.min(text.length, e.offset + e.length - lead);
      return { ...e, offset: start, length: stop - start };
    })
    .filter((e) => e.length > 0);
  return { text, entities };
}
