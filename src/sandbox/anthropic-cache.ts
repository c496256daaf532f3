import { createHash } from 'node:crypto';

// Prompt caching in the Anthropic fake, as "Prompt caching" documents it: the prompt is tools, then system, then
// messages, block by block; a block with `cache_control` is a breakpoint (at most 4), and the prefix up to it is
// cached when it is at least the model's minimum cacheable length. A later request whose prefix matches a cached one
// (at a breakpoint, or up to 20 blocks before one) reads it; a longer breakpoint prefix is written. Usage reports
// `cache_read_input_tokens`, `cache_creation_input_tokens` (with its 5m/1h split) and the rest as `input_tokens`.
// Entries live for their ttl (5 minutes by default, or 1 hour) from their last use.

/** One block of the prompt in order: its token count, its content (cache_control left out) and its breakpoint. */
export interface PromptSegment {
  tokens: number;
  content: string;
  ttl?: '5m' | '1h';
}

export interface CacheUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export const MAX_BREAKPOINTS = 4;
const LOOKBACK_BLOCKS = 20;
const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
const MAX_ENTRIES = 10_000;

// Minimum cacheable prompt length per model (tokens); shorter prefixes are processed without caching, silently.
const MINIMUMS: Array<[RegExp, number]> = [
  [/^claude-haiku-4-5/, 4096],
  [/^claude-sonnet-4-6/, 2048],
  [/^claude-opus-4-[5-6]/, 4096],
];
export const minimumCacheable = (model: string) => MINIMUMS.find(([pattern]) => pattern.test(model))?.[1] ?? 1024;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A block's `cache_control` as a ttl; the error text when it is malformed. */
export function breakpointOf(block: unknown, at: string): '5m' | '1h' | undefined | { problem: string } {
  if (!isObject(block) || block.cache_control === undefined || block.cache_control === null) return undefined;
  const mark = block.cache_control;
  if (!isObject(mark) || mark.type !== 'ephemeral') return { problem: `${at}.cache_control.type: Input should be 'ephemeral'` };
  if (mark.ttl !== undefined && mark.ttl !== '5m' && mark.ttl !== '1h') {
    return { problem: `${at}.cache_control.ttl: Input should be '5m' or '1h'` };
  }
  return (mark.ttl as '5m' | '1h' | undefined) ?? '5m';
}

/** The cached prefixes of one fake (one per sandbox), keyed by model and prefix hash, with their expiry. */
export class PromptCache {
  private readonly entries = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Accounts one request's prompt against the cache (reading and writing it); `overhead` tokens are never cached. */
  account(model: string, segments: readonly PromptSegment[], overhead: number): CacheUsage {
    const now = this.now();
    const keys: string[] = [];
    const prefix: number[] = [];
    let hash = createHash('sha256').update(model).digest('hex');
    let tokens = 0;
    for (const s of segments) {
      hash = createHash('sha256').update(hash).update(s.content).digest('hex');
      tokens += s.tokens;
      keys.push(`${model}:${hash}`);
      prefix.push(tokens);
    }
    const total = tokens + overhead;
    const minimum = minimumCacheable(model);
    const breakpoints = segments.flatMap((s, i) => (s.ttl !== undefined ? [i] : []));

    let read = 0;
    let readAt = -1;
    for (const b of breakpoints) {
      for (let j = b; j >= Math.max(0, b - LOOKBACK_BLOCKS); j--) {
        const expires = this.entries.get(keys[j]);
        if (expires !== undefined && expires > now && prefix[j] > read) {
          read = prefix[j];
          readAt = j;
        }
      }
    }
    if (readAt >= 0) this.touch(keys[readAt], segments, readAt, now);

    let written5m = 0;
    let written1h = 0;
    let covered = read;
    for (const b of breakpoints) {
      if (prefix[b] < minimum || prefix[b] <= covered) continue;
      const ttl = segments[b].ttl!;
      if (ttl === '1h') written1h += prefix[b] - covered;
      else written5m += prefix[b] - covered;
      covered = prefix[b];
      this.entries.set(keys[b], now + TTL_MS[ttl]);
    }
    this.bound(now);
    const created = written5m + written1h;
    return {
      input_tokens: total - read - created,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: created,
      cache_creation: { ephemeral_5m_input_tokens: written5m, ephemeral_1h_input_tokens: written1h },
    };
  }

  /** A read refreshes the entry's lifetime (by the ttl of the breakpoint at or after it). */
  private touch(key: string, segments: readonly PromptSegment[], at: number, now: number): void {
    const ttl = segments.slice(at).find((s) => s.ttl !== undefined)?.ttl ?? '5m';
    this.entries.set(key, Math.max(this.entries.get(key) ?? 0, now + TTL_MS[ttl]));
  }

  private bound(now: number): void {
    if (this.entries.size <= MAX_ENTRIES) return;
    for (const [key, expires] of this.entries) if (expires <= now) this.entries.delete(key);
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}
