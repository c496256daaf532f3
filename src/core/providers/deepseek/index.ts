import type { ProviderAdapter } from '../types';
import { deepSeekChat } from './chat';

/** DeepSeek: deepseek-chat and deepseek-reasoner over its Chat Completions-compatible API. */
export const deepseekAdapter: ProviderAdapter = {
  name: 'deepseek',
  defaultBaseUrl: 'https://api.deepseek.com',
  chat: deepSeekChat,
};
