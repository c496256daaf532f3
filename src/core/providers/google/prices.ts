import { per1kCharacters, perImage, perSecond, perToken, type PriceSource, type VendorPriceList } from '../prices';

// The Gemini Developer API's paid tier (prompts up to 200K tokens). Context-cache reads cost a tenth of the input
// price; Gemini bills no separate cache write for implicit caching.

const READ = '2026-11-28';
const PRICING: PriceSource = { source: 'https://ai.google.dev/gemini-api/docs/pricing', read: READ };
const withNote = (note: string): PriceSource => ({ ...PRICING, note });

// Gemini TTS bills tokens: text in at $0.50 per million, audio out at 25 tokens a second. At about 4 characters a
// text token and 15 spoken characters a second, 1000 characters are 250 text tokens and 1667 audio tokens.
const ttsPer1k = (audioPerM: number) => Math.round((250 * 0.5 + 1667 * audioPerM) / 1e3) / 1e3;

export const GOOGLE_PRICES: VendorPriceList = {
  'gemini-3.1-flash-lite': perToken({ inputPerM: 0.25, cachedInputPerM: 0.025, outputPerM: 1.5 }, PRICING),
  'gemini-3.5-flash': perToken({ inputPerM: 1.5, cachedInputPerM: 0.15, outputPerM: 9 }, PRICING),
  'gemini-3.1-pro-preview': perToken({ inputPerM: 2, cachedInputPerM: 0.2, outputPerM: 12 }, PRICING),
  'gemini-3.1-flash-image': perImage({ square: { standard: 0.067 } }, withNote('1120 image-output tokens (1K) at $60/M')),
  'gemini-3-pro-image': perImage({ square: { standard: 0.134 } }, withNote('1120 image-output tokens (1K/2K) at $120/M')),
  'gemini-omni-1.1-flash': perSecond(0.1, withNote('720p, with audio: the resolution the API uses when none is asked for')),
  'gemini-omni-1.2-flash': perSecond(0.07, withNote('720p, with audio: the resolution the API uses when none is asked for')),
  'gemini-3.8-flash-lite-tts': per1kCharacters(
    ttsPer1k(6),
    withNote('$0.50/M text in, $6/M audio out (launch price through 2026-12-31, doubles 2027-01-01), per 1000 characters'),
  ),
  'gemini-3.8-flash-tts': per1kCharacters(
    ttsPer1k(9),
    withNote('$0.50/M text in, $9/M audio out (launch price through 2026-12-31, doubles 2027-01-01), per 1000 characters'),
  ),
};
