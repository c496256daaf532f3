import { perRun, type VendorPriceList } from '../prices';

// Models run in this process cost the operator no vendor fee.
export const LOCAL_PRICES: VendorPriceList = {
  'tesseract-eng': perRun(0, { source: 'https://github.com/naptha/tesseract.js', read: '2026-11-28', note: 'runs in-process' }),
};
