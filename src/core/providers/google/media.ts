import { MediaCapability, ProviderError } from '../types';
import { geminiImage } from './images';
import { omniPoll, omniStart } from './interactions';
import { synthesizeGeminiSpeech } from './speech';

export const googleMedia: MediaCapability = {
  async start(req, conn, signal) {
    if (req.category === 'image') return { state: 'completed', output: await geminiImage(req, conn, signal) };
    if (req.category === 'tts') return { state: 'completed', output: await synthesizeGeminiSpeech(req, conn, signal) };
    if (req.category === 'video') return omniStart(req, conn, signal);
    throw new ProviderError('bad_request', `google serves no ${req.category} models`, 'google');
  },
  async poll(upstreamJobId, req, conn, signal) {
    if (req.category !== 'video') {
      throw new ProviderError('bad_request', `google ${req.category} requests finish synchronously`, 'google');
    }
    return omniPoll(upstreamJobId, req, conn, signal);
  },
};
