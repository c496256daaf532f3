import { createHash } from 'node:crypto';

// Automatic prompt caching, as OpenAI ("Prompt caching": prompts of 1024 tokens or more, cache hits in 128-token
// steps, `prompt_cache_key` routes requests that share a prefix together), xAI and DeepSeek ("Context caching":
// repeated prefixes in 64-token units, no minimum worth noting) document it: no marks, a request's prefix is cached
// when it is served, and a later request that starts with a cached prefix reads it. This fake caches at message
// boundaries: a hit is the longest earlier prefix of whole messages, in the vendor's steps.

export interface CacheRules {
  /** Prompts shorter than this are never cached. */
  minimum: number;
  /** Cache hits count in steps of this many tokens. */
  step: number;
  ttlMs: number;
}

/** One piece of the prompt in order (the tools, then each message) with its tokens. */
export interface PrefixPart {
  content: string;
  tokens: number;
}

const MAX_ENTRIES = 10_000;

export class AutomaticPromptCache {
  private readonly entries = new Map<string, number>();

  constructor(
    private readonly rules: CacheRules,
    private readonly now: () => number = Date.now,
  ) {}

  /** The tokens of `parts` read from the cache (under `namespace`: model and cache key); the prefixes are cached after. */
  account(namespace: string, parts: readonly PrefixPart[], total: number): number {
    const now = this.now();
    if (total < this.rules.minimum) return 0;
    let hash = createHash('sha256').update(namespace).digest('hex');
    let tokens = 0;
    let hit = 0;
    for (const part of parts) {
      hash = createHash('sha256').update(hash).update(part.content).digest('hex');
      tokens += part.tokens;
      const expires = this.entries.get(hash);
      if (expires !== undefined && expires > now) hit = tokens;
      this.entries.set(hash, now + this.rules.ttlMs);
    }
    this.bound(now);
    const cached = Math.floor(Math.min(hit, total) / this.rules.step) * this.rules.step;
    return cached >= this.rules.minimum || this.rules.minimum <= this.rules.step ? cached : 0;
  }

  private bound(now: number): void {
    if (this.entries.size <= MAX_ENTRIES) return;
    for (const [key, expires] of this.entries) if (expires <= now) this.entries.delete(key);
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}
