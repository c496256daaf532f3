import { ProviderAdapter } from '../adapter';
import { anthropicFaults } from './faults';
import { anthropicModelList } from './model-list';
import { anthropicChat } from './chat';
import { ANTHROPIC_PRICES } from './prices';

/** Claude through the Messages API (`x-api-key` + `anthropic-version`). Text only: no media capability. */
export const anthropicAdapter: ProviderAdapter<'anthropic'> = {
  name: 'anthropic',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  faults: anthropicFaults,
  models: anthropicModelList,
  prices: ANTHROPIC_PRICES,
  capabilities: { chat: true, media: [], hostedTools: [], caching: 'explicit', reasoning: true },
  chat: anthropicChat,
};
