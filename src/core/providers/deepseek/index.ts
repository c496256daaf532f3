import { ProviderAdapter } from '../adapter';
import { deepseekFaults } from './faults';
import { openAiStyleModelList } from '../openai-compatible/model-list';
import { deepSeekChat } from './chat';

/** DeepSeek: deepseek-v4-flash and deepseek-v4-pro over its Chat Completions-compatible API. */
export const deepseekAdapter: ProviderAdapter<'deepseek'> = {
  name: 'deepseek',
  defaultBaseUrl: 'https://api.deepseek.com',
  faults: deepseekFaults,
  models: openAiStyleModelList('deepseek'),
  prices: null,
  capabilities: { chat: true, media: [], hostedTools: [], caching: 'automatic', reasoning: true },
  chat: deepSeekChat,
};
