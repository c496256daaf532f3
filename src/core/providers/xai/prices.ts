import { perImage, perToken, type PriceSource, type VendorPriceList } from '../prices';

// xAI's model pages (prompts under 200K tokens); cached input is a quarter of the input price or less, and xAI bills
// no cache write.
const READ = '2026-11-28';
const model = (id: string, note?: string): PriceSource => ({
  source: `https://docs.x.ai/developers/models/${id}`,
  read: READ,
  ...(note ? { note } : {}),
});

export const XAI_PRICES: VendorPriceList = {
  'grok-3-mini': perToken({ inputPerM: 0.3, cachedInputPerM: 0.075, outputPerM: 0.5 }, model('grok-3-mini')),
  'grok-4.20-non-reasoning': perToken(
    { inputPerM: 1.25, cachedInputPerM: 0.2, outputPerM: 2.5 },
    model('grok-4.20-0309', 'the beta price was $2 / $6'),
  ),
  'grok-4.3': perToken({ inputPerM: 1.25, cachedInputPerM: 0.2, outputPerM: 2.5 }, model('grok-4.3')),
  'grok-imagine-image-2.0': perImage(
    { square: { standard: 0.06 } },
    model('grok-imagine-image-2.0', 'medium quality at 1K, what the adapter asks for'),
  ),
};
