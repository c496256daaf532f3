import { providerAdapters } from '../core/providers/registry';
import type { ProviderName } from '../core/providers/types';
import { anthropicSandbox } from './anthropic';
import { bflSandbox } from './bfl';
import { deepseekSandbox } from './deepseek';
import { elevenlabsSandbox } from './elevenlabs';
import { googleSandbox } from './google';
import { localSandbox } from './local';
import { withModelList } from './model-lists';
import { openaiSandbox } from './openai';
import { replicateSandbox } from './replicate';
import { SandboxHandler } from './types';
import { xaiSandbox } from './xai';
import { yookassaSandbox } from './yookassa';

/** Every vendor's wire fake: a vendor of the registry without one fails the type check. */
const FAKES: Record<ProviderName, SandboxHandler> = {
  openai: openaiSandbox,
  anthropic: anthropicSandbox,
  google: googleSandbox,
  xai: xaiSandbox,
  deepseek: deepseekSandbox,
  bfl: bflSandbox,
  replicate: replicateSandbox,
  elevenlabs: elevenlabsSandbox,
  local: localSandbox,
};

/**
 * Every vendor's fake, with the model-list endpoint its definition declares, and the payment provider's: the
 * sandbox upstream that `npm start` runs when a provider has no credentials.
 */
export const sandboxHandlers: Record<ProviderName | 'yookassa', SandboxHandler> = {
  ...(Object.fromEntries(
    Object.entries(FAKES).map(([name, fake]) => [name, withModelList(providerAdapters[name as ProviderName], fake)]),
  ) as Record<ProviderName, SandboxHandler>),
  yookassa: yookassaSandbox,
};
