/** Decodes UTF-8 and fails on any invalid sequence instead of putting U+FFFD in its place; a BOM is kept as text. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as text, or null when they are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

export type PercentDecoded = { text: string } | { error: 'malformed' | 'not_utf8' };

const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/**
 * A percent-encoded URL component (a path, or a query key or value with `plusIsSpace`) as text: the escaped bytes
 * must be UTF-8 (`not_utf8` otherwise, where decodeURIComponent's fallbacks would substitute U+FFFD). A `%` not
 * followed by two hex digits is `malformed` with `strictEscapes`, and kept as a literal `%` without (as the query
 * parser does).
 */
export function percentDecode(component: string, options: { plusIsSpace?: boolean; strictEscapes?: boolean } = {}): PercentDecoded {
  const literal = (s: string) => (options.plusIsSpace ? s.replaceAll('+', ' ') : s);
  if (!component.includes('%')) return { text: literal(component) };
  const parts: Buffer[] = [];
  let literalFrom = 0;
  for (let i = 0; i < component.length; i++) {
    if (component[i] !== '%') continue;
    const hex = component.slice(i + 1, i + 3);
    if (!HEX_PAIR.test(hex)) {
      if (options.strictEscapes) return { error: 'malformed' };
      continue;
    }
    parts.push(Buffer.from(literal(component.slice(literalFrom, i)), 'utf8'), Buffer.of(parseInt(hex, 16)));
    i += 2;
    literalFrom = i + 1;
  }
  parts.push(Buffer.from(literal(component.slice(literalFrom)), 'utf8'));
  const text = decodeUtf8(Buffer.concat(parts));
  return text === null ? { error: 'not_utf8' } : { text };
}
