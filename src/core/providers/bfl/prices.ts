import { perImage, type PriceSource, type VendorPriceList } from '../prices';

// BFL bills each FLUX image at a flat price (credits at $0.01 each), whatever its size.
const FROM: PriceSource = { source: 'https://docs.bfl.ai/quick_start/pricing', read: '2026-11-28' };
const flat = (usd: number) => perImage({ square: { standard: usd } }, FROM);

export const BFL_PRICES: VendorPriceList = {
  'flux-dev': flat(0.025),
  'flux-pro-1.1': flat(0.04),
  'flux-pro-1.1-ultra': flat(0.06),
  'flux-kontext-pro': flat(0.04),
  'flux-pro-1.0-fill': flat(0.05),
};
