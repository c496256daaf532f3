import { MediaCapability, ProviderError } from '../types';
import { ProviderAdapter } from '../adapter';
import { elevenlabsFaults } from './faults';
import { elevenLabsModelList } from './model-list';
import { compose } from './music';
import { synthesize } from './speech';
import { transcribe } from './transcription';
import { reportingIgnored } from '../warnings';
import { ELEVENLABS_PRICES } from './prices';

/**
 * ElevenLabs (`xi-api-key`): text-to-speech, Scribe speech-to-text with diarization, and music. All three
 * answer within the request, so `start` always completes; music is long, which is why the pipeline runs it
 * in a durable job.
 */
const media: MediaCapability = {
  async start(req, conn, signal) {
    switch (req.category) {
      case 'tts':
        return { state: 'completed', output: await synthesize(req, conn, signal) };
      case 'stt':
        return { state: 'completed', output: await transcribe(req, conn, signal) };
      case 'music':
        return { state: 'completed', output: await compose(req, conn, signal) };
      default:
        throw new ProviderError('bad_request', `elevenlabs does not serve ${req.category}`, 'elevenlabs');
    }
  },
  async poll() {
    return {
      state: 'failed',
      error: new ProviderError('bad_request', 'elevenlabs jobs complete in start; there is nothing to poll', 'elevenlabs'),
    };
  },
};

export const elevenlabsAdapter: ProviderAdapter<'elevenlabs'> = {
  name: 'elevenlabs',
  defaultBaseUrl: 'https://api.elevenlabs.io',
  faults: elevenlabsFaults,
  models: elevenLabsModelList,
  prices: ELEVENLABS_PRICES,
  capabilities: { chat: false, media: ['tts', 'stt', 'music'], hostedTools: [], caching: 'none', reasoning: false },
  media: reportingIgnored(media, () => ['speed', 'language', 'diarize']),
};
