import MarkdownIt from 'markdown-it';
import { createElement, Fragment, useMemo, type ReactNode } from 'react';

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

// CommonMark plus GFM tables and strikethrough, raw HTML off: markdown-it parses, and the tokens become React
// elements from a fixed list below. No HTML string is ever put into the page, so nothing a model writes can add
// markup, attributes, styles or scripts, and nothing here needs the CSP to allow more.
const md = new MarkdownIt('commonmark', { html: false }).enable(['table', 'strikethrough']);

const ELEMENTS: Record<string, string> = {
  p: 'p',
  ul: 'ul',
  ol: 'ol',
  li: 'li',
  blockquote: 'blockquote',
  em: 'em',
  strong: 'strong',
  s: 's',
  a: 'a',
  table: 'table',
  thead: 'thead',
  tbody: 'tbody',
  tr: 'tr',
  th: 'th',
  td: 'td',
  // An answer's headings sit under the page's own h1 and h2.
  h1: 'h3',
  h2: 'h4',
  h3: 'h5',
  h4: 'h6',
  h5: 'h6',
  h6: 'h6',
};

/** Links only to the web and mail; `javascript:`, `data:` and the like stay plain text. */
function safeHref(href: string | null): string | null {
  if (!href) return null;
  try {
    const url = new URL(href, 'https://invalid.example');
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) && /^(https?:|mailto:)/i.test(href) ? href : null;
  } catch {
    return null;
  }
}

interface Frame {
  token: Token | null;
  children: ReactNode[];
}

function element(token: Token, children: ReactNode[], key: number): ReactNode {
  const tag = ELEMENTS[token.tag];
  if (!tag || (token.type === 'paragraph_open' && token.hidden)) return createElement(Fragment, { key }, ...children);
  if (tag === 'a') {
    const href = safeHref(String(token.attrGet('href') ?? ''));
    return href
      ? createElement('a', { key, href, rel: 'noopener noreferrer nofollow', target: '_blank' }, ...children)
      : createElement(Fragment, { key }, ...children);
  }
  if (tag === 'ol') {
    const start = Number(token.attrGet('start') ?? 1);
    return createElement('ol', { key, start: Number.isSafeInteger(start) ? start : 1 }, ...children);
  }
  return createElement(tag, { key }, ...children);
}

function leaf(token: Token, key: number): ReactNode {
  switch (token.type) {
    case 'text':
      return token.content;
    case 'code_inline':
      return <code key={key}>{token.content}</code>;
    case 'softbreak':
      return '\n';
    case 'hardbreak':
      return <br key={key} />;
    case 'fence':
    case 'code_block':
      return (
        <pre key={key}>
          <code>{token.content}</code>
        </pre>
      );
    case 'hr':
      return <hr key={key} />;
    case 'image':
      return `[${token.content || String(token.attrGet('src') ?? '')}]`;
    case 'inline':
      return <Fragment key={key}>{build(token.children ?? [])}</Fragment>;
    default:
      return token.content || null;
  }
}

/** Tokens (a flat list with open/close pairs) to a tree of React nodes. */
function build(tokens: Token[]): ReactNode[] {
  const stack: Frame[] = [{ token: null, children: [] }];
  tokens.forEach((token, i) => {
    const top = stack[stack.length - 1]!;
    if (token.nesting === 1) stack.push({ token, children: [] });
    else if (token.nesting === -1 && stack.length > 1) {
      const frame = stack.pop()!;
      stack[stack.length - 1]!.children.push(element(frame.token!, frame.children, i));
    } else top.children.push(leaf(token, i));
  });
  return stack[0]!.children;
}

/** A model's Markdown answer, rendered as React elements (sanitised by construction). */
export function Markdown({ text }: { text: string }) {
  const nodes = useMemo(() => build(md.parse(text, {})), [text]);
  return <div className="markdown">{nodes}</div>;
}
