import { perToken, type PriceSource, type VendorPriceList } from '../prices';

// DeepSeek bills peak hours (weekdays 01:00-04:00 and 06:00-10:00 UTC) at twice the off-peak rate; the table keeps
// the peak rate, so a generation's recorded cost is never below what DeepSeek charged. A cache miss is the input price.
const FROM: PriceSource = {
  source: 'https://api-docs.deepseek.com/quick_start/pricing',
  read: '2026-11-28',
  note: 'peak rate (off-peak is half)',
};

export const DEEPSEEK_PRICES: VendorPriceList = {
  'deepseek-flash': perToken({ inputPerM: 0.3, cachedInputPerM: 0.006, outputPerM: 1.2 }, FROM),
  'deepseek-v4-pro': perToken({ inputPerM: 1.32, cachedInputPerM: 0.044, outputPerM: 3.96 }, FROM),
};
