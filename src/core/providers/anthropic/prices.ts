import { perToken, perUse, type HostedToolPriceList, type PriceSource, type VendorPriceList } from '../prices';

// Anthropic's model pricing table: base input, the 5-minute cache write (1.25x input), cache hits, output.
const FROM: PriceSource = { source: 'https://platform.claude.com/docs/en/about-claude/pricing', read: '2026-11-28' };

export const ANTHROPIC_PRICES: VendorPriceList = {
  'claude-haiku-4-5': perToken({ inputPerM: 1, cachedInputPerM: 0.1, cacheWritePerM: 1.25, outputPerM: 5 }, FROM),
  'claude-sonnet-4-6': perToken({ inputPerM: 3, cachedInputPerM: 0.3, cacheWritePerM: 3.75, outputPerM: 15 }, FROM),
  'claude-opus-4-8': perToken({ inputPerM: 5, cachedInputPerM: 0.5, cacheWritePerM: 6.25, outputPerM: 25 }, FROM),
};

/** Server tools: web search is billed per search, on top of the tokens its results add to the prompt. */
export const ANTHROPIC_TOOL_PRICES: HostedToolPriceList = {
  web_search: perUse(0.01, { ...FROM, note: '$10 per 1000 searches' }),
};
