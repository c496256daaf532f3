import { perAudioMinute, perImage, perToken, perUse, type HostedToolPriceList, type PriceSource, type VendorPriceList } from '../prices';

// OpenAI's list prices (Standard processing, prompts up to 272K input tokens). Each model page gives the text-token
// prices; the GPT-5.6 and later families bill a 30-minute cache write at 1.25x the input price.

const READ = '2026-11-28';
const model = (id: string, note?: string): PriceSource => ({
  source: `https://developers.openai.com/api/docs/models/${id}`,
  read: READ,
  ...(note ? { note } : {}),
});

// GPT Image 2.6 bills image-output tokens ($30 per million, the same as GPT Image 2.5); a 1024x1024 image is 439
// tokens at medium quality (our `standard`) and 1756 at high (`hd`). The stored pages give no per-size count for
// 2.6, so every size is priced as the square one.
const IMAGE_2_6 = perImage(
  { square: { standard: 0.0132, hd: 0.0527 } },
  {
    source: 'https://developers.openai.com/api/docs/models/gpt-image-2.6-flare',
    read: READ,
    note: '439 / 1756 image-output tokens at $30/M (medium / high, 1024x1024); token prices as GPT Image 2.5',
  },
);

export const OPENAI_PRICES: VendorPriceList = {
  'gpt-6-luna': perToken({ inputPerM: 0.1, cachedInputPerM: 0.01, cacheWritePerM: 0.125, outputPerM: 0.5 }, model('gpt-6-luna')),
  'gpt-5.6-luna': perToken(
    { inputPerM: 0.2, cachedInputPerM: 0.02, cacheWritePerM: 0.25, outputPerM: 1.2 },
    model('gpt-5.6-luna', 'the price cut of 2026-07-30 ($1 / $6 at launch)'),
  ),
  'gpt-6.1-sol': perToken({ inputPerM: 2, cachedInputPerM: 0.1, cacheWritePerM: 2.5, outputPerM: 10 }, model('gpt-6.1-sol')),
  'gpt-6.1-terra': perToken({ inputPerM: 1, cachedInputPerM: 0.05, cacheWritePerM: 1.25, outputPerM: 5 }, model('gpt-6.1-terra')),
  'gpt-5.6-terra': perToken(
    { inputPerM: 2, cachedInputPerM: 0.2, cacheWritePerM: 2.5, outputPerM: 12 },
    model('gpt-5.6-terra', 'the price cut of 2026-07-30 ($2.50 / $15 at launch)'),
  ),
  'gpt-6.2-sol': perToken({ inputPerM: 2, cachedInputPerM: 0.1, cacheWritePerM: 2.5, outputPerM: 10 }, model('gpt-6.2-sol')),
  'gpt-6.2-astra': perToken(
    { inputPerM: 8, cachedInputPerM: 0.4, cacheWritePerM: 10, outputPerM: 40 },
    model('gpt-6.2-astra', 'cached input 60% below GPT-6 Astra ($1)'),
  ),
  'gpt-image-2.6-flare': IMAGE_2_6,
  'gpt-image-2.6-sunburst': { ...IMAGE_2_6, source: 'https://developers.openai.com/api/docs/models/gpt-image-2.6-sunburst' },
  'gpt-transcribe': perAudioMinute(0.0045, model('gpt-transcribe')),
  'gpt-4o-transcribe': perAudioMinute(0.006, model('gpt-4o-transcribe', '$2.50 / $10 per million audio / text tokens, $0.006 a minute')),
};

/** Built-in tools of the Responses API: web search is billed per call (its search content tokens as input tokens). */
export const OPENAI_TOOL_PRICES: HostedToolPriceList = {
  web_search: perUse(0.01, {
    source: 'https://developers.openai.com/api/docs/pricing#built-in-tools',
    read: READ,
    note: '$10 per 1000 calls',
  }),
};
