import { MediaCapability, ProviderError } from '../types';
import { ProviderAdapter } from '../adapter';
import { statusFaults } from '../faults';
import { recognizeText } from './ocr';
import { reportingIgnored } from '../warnings';
import { LOCAL_PRICES } from './prices';

export { terminateOcrWorker } from './ocr';

/** Tools that run inside this process. Today: text-ocr with tesseract.js. No HTTP, so no base URL is used. */
const media: MediaCapability = {
  async start(req, _conn, signal) {
    if (req.category !== 'tool' || req.slug !== 'text-ocr')
      throw new ProviderError('bad_request', `local has no tool ${req.slug}`, 'local');
    const image = req.images?.[0];
    if (!image) throw new ProviderError('bad_request', 'text-ocr needs an image', 'local');
    signal?.throwIfAborted();
    let text: string;
    try {
      text = await recognizeText(image.data);
    } catch (err) {
      if (/unsupported image format|Input buffer|corrupt/i.test((err as Error).message)) {
        throw new ProviderError('bad_request', `text-ocr could not read the image: ${(err as Error).message}`, 'local');
      }
      throw new ProviderError('upstream', `text-ocr failed: ${(err as Error).message}`, 'local');
    }
    signal?.throwIfAborted();
    return { state: 'completed', output: { files: [], text } };
  },
  async poll() {
    return { state: 'failed', error: new ProviderError('bad_request', 'local tools complete in start; nothing to poll', 'local') };
  },
};

export const localAdapter: ProviderAdapter<'local'> = {
  name: 'local',
  defaultBaseUrl: 'local://',
  faults: statusFaults,
  models: null,
  prices: LOCAL_PRICES,
  capabilities: { chat: false, media: ['tool'], hostedTools: [], caching: 'none', reasoning: false },
  media: reportingIgnored(media, () => []),
};
