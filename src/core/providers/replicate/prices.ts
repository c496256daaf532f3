import { perImage, perRun, perSecond, type PriceSource, type VendorPriceList } from '../prices';

// Replicate prices official models by output (per image, per second of video at the resolution the adapter asks for,
// replicate/models.ts) and community models by the hardware time they run; for those the model page's typical cost
// per run is kept.
const READ = '2026-11-28';
const page = (id: string, note?: string): PriceSource => ({
  source: `https://replicate.com/${id}`,
  read: READ,
  ...(note ? { note } : {}),
});
const hardware = (id: string) => page(id, "billed by hardware time: the model page's typical cost per run");

export const REPLICATE_PRICES: VendorPriceList = {
  'stability-ai/sdxl': perRun(0.004, hardware('stability-ai/sdxl')),
  'stability-ai/stable-diffusion-3.5-large': perImage({ square: { standard: 0.065 } }, page('stability-ai/stable-diffusion-3.5-large')),
  'kwaivgi/kling-v2.1': perSecond(0.05, page('kwaivgi/kling-v2.1', 'standard mode (720p)')),
  'minimax/hailuo-02': perSecond(0.045, page('minimax/hailuo-02', '768p')),
  'wan-video/wan-2.2-t2v-fast': perSecond(0.01, page('wan-video/wan-2.2-t2v-fast', '$0.05 per 5-second 480p video')),
  'bytedance/seedance-1-pro': perSecond(0.15, page('bytedance/seedance-1-pro', '1080p')),
  'meta/musicgen': perRun(0.07, hardware('meta/musicgen')),
  'nightmareai/real-esrgan': perRun(0.0025, hardware('nightmareai/real-esrgan')),
  'codeplugtech/face-swap': perRun(0.0027, hardware('codeplugtech/face-swap')),
  '851-labs/background-remover': perRun(0.0005, hardware('851-labs/background-remover')),
  'fofr/style-transfer': perRun(0.012, hardware('fofr/style-transfer')),
  'piddnad/ddcolor': perRun(0.0021, hardware('piddnad/ddcolor')),
};
