import type { ProviderAdapter } from '../types';
import { deepSeekChat } from './chat';

/** DeepSeek: deepseek-v4-flash and deepseek-v4-pro over its Chat Completions-compatible API. */
export const deepseekAdapter: ProviderAdapter = {
  name: 'deepseek',
  defaultBaseUrl: 'https://api.deepseek.com',
  chat: deepSeekChat,
};
