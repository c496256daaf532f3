import { ProviderAdapter } from '../types';
import { anthropicChat } from './chat';

/** Claude through the Messages API (`x-api-key` + `anthropic-version`). Text only: no media capability. */
export const anthropicAdapter: ProviderAdapter = {
  name: 'anthropic',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  chat: anthropicChat,
};
