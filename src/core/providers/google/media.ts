import { MediaCapability, ProviderError } from '../types';
import { geminiImage, imagenImage } from './images';
import { veoPoll, veoStart } from './videos';

export const googleMedia: MediaCapability = {
  async start(req, conn, signal) {
    if (req.category === 'image') {
      const output = req.upstreamModel.startsWith('imagen') ? await imagenImage(req, conn, signal) : await geminiImage(req, conn, signal);
      return { state: 'completed', output };
    }
    if (req.category === 'video') return veoStart(req, conn, signal);
    throw new ProviderError('bad_request', `google serves no ${req.category} models`, 'google');
  },
  async poll(upstreamJobId, req, conn, signal) {
    if (req.category !== 'video') {
      throw new ProviderError('bad_request', `google ${req.category} requests finish synchronously`, 'google');
    }
    return veoPoll(upstreamJobId, req, conn, signal);
  },
};
