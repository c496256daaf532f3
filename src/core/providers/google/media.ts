import { MediaCapability, ProviderError } from '../types';
import { geminiImage, imagenImage } from './images';
import { omniPoll, omniStart } from './interactions';
import { synthesizeGeminiSpeech } from './speech';
import { veoPoll, veoStart } from './videos';

/** Gemini Omni answers on the Interactions API; Veo (on a compatible endpoint) still on long-running operations. */
const isOmni = (model: string) => model.startsWith('gemini-omni');

export const googleMedia: MediaCapability = {
  async start(req, conn, signal) {
    if (req.category === 'image') {
      const output = req.upstreamModel.startsWith('imagen') ? await imagenImage(req, conn, signal) : await geminiImage(req, conn, signal);
      return { state: 'completed', output };
    }
    if (req.category === 'tts') return { state: 'completed', output: await synthesizeGeminiSpeech(req, conn, signal) };
    if (req.category === 'video') return isOmni(req.upstreamModel) ? omniStart(req, conn, signal) : veoStart(req, conn, signal);
    throw new ProviderError('bad_request', `google serves no ${req.category} models`, 'google');
  },
  async poll(upstreamJobId, req, conn, signal) {
    if (req.category !== 'video') {
      throw new ProviderError('bad_request', `google ${req.category} requests finish synchronously`, 'google');
    }
    return isOmni(req.upstreamModel) ? omniPoll(upstreamJobId, req, conn, signal) : veoPoll(upstreamJobId, req, conn, signal);
  },
};
