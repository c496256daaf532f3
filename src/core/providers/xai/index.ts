import { synchronousMedia } from '../openai-compatible';
import { ProviderAdapter } from '../adapter';
import { xaiFaults } from './faults';
import { openAiStyleModelList } from '../openai-compatible/model-list';
import { xaiChat } from './chat';
import { generateXaiImage } from './images';
import { reportingIgnored } from '../warnings';
import { XAI_PRICES } from './prices';

/** xAI: Grok chat over Chat Completions, and grok-2-image over /images/generations. */
export const xaiAdapter: ProviderAdapter<'xai'> = {
  name: 'xai',
  defaultBaseUrl: 'https://api.x.ai/v1',
  faults: xaiFaults,
  models: openAiStyleModelList('xai', { retrieve: true }),
  prices: XAI_PRICES,
  capabilities: { chat: true, media: ['image'], hostedTools: [], caching: 'automatic', reasoning: true },
  chat: xaiChat,
  media: reportingIgnored(synchronousMedia('xai', { image: generateXaiImage }), () => []),
};
