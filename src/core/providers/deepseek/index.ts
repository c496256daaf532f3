import { ProviderAdapter } from '../adapter';
import { deepseekFaults } from './faults';
import { openAiStyleModelList } from '../openai-compatible/model-list';
import { deepSeekChat } from './chat';
import { DEEPSEEK_PRICES } from './prices';

/** DeepSeek: deepseek-flash (V4.1 Flash) and deepseek-v4-pro over its Chat Completions-compatible API. */
export const deepseekAdapter: ProviderAdapter<'deepseek'> = {
  name: 'deepseek',
  defaultBaseUrl: 'https://api.deepseek.com',
  faults: deepseekFaults,
  models: openAiStyleModelList('deepseek', { retrieve: false }),
  prices: DEEPSEEK_PRICES,
  capabilities: { chat: true, media: [], hostedTools: [], caching: 'automatic', reasoning: true },
  chat: deepSeekChat,
};
