import { anthropicAdapter } from './anthropic';
import { bflAdapter } from './bfl';
import { deepseekAdapter } from './deepseek';
import { elevenlabsAdapter } from './elevenlabs';
import { googleAdapter } from './google';
import { localAdapter } from './local';
import { openaiAdapter } from './openai';
import { replicateAdapter } from './replicate';
import { ProviderAdapter, ProviderName } from './types';
import { xaiAdapter } from './xai';

/** The one list of upstream providers; the catalog's `provider` field must resolve here. */
export const providerAdapters: Readonly<Record<ProviderName, ProviderAdapter>> = Object.freeze({
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  google: googleAdapter,
  xai: xaiAdapter,
  deepseek: deepseekAdapter,
  bfl: bflAdapter,
  replicate: replicateAdapter,
  elevenlabs: elevenlabsAdapter,
  local: localAdapter,
});

export const defaultBaseUrls = Object.fromEntries(
  Object.entries(providerAdapters).map(([name, adapter]) => [name, adapter.defaultBaseUrl]),
) as Record<ProviderName, string>;
