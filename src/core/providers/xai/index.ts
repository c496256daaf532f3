import { synchronousMedia } from '../openai-compatible';
import type { ProviderAdapter } from '../types';
import { xaiChat } from './chat';
import { generateXaiImage } from './images';
import { reportingIgnored } from '../warnings';

/** xAI: Grok chat over Chat Completions, and grok-2-image over /images/generations. */
export const xaiAdapter: ProviderAdapter = {
  name: 'xai',
  defaultBaseUrl: 'https://api.x.ai/v1',
  chat: xaiChat,
  media: reportingIgnored(synchronousMedia('xai', { image: generateXaiImage }), () => []),
};
