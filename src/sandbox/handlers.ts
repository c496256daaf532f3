import { ProviderName } from '../core/providers/types';
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

/** Every vendor's fake (with its model-list endpoint), for the sandbox upstream that `npm start` runs when a provider has no credentials. */
export const sandboxHandlers: Record<ProviderName | 'yookassa', SandboxHandler> = {
  openai: withModelList('openai', openaiSandbox),
  anthropic: withModelList('anthropic', anthropicSandbox),
  google: withModelList('google', googleSandbox),
  xai: withModelList('xai', xaiSandbox),
  deepseek: withModelList('deepseek', deepseekSandbox),
  bfl: bflSandbox,
  replicate: withModelList('replicate', replicateSandbox),
  elevenlabs: withModelList('elevenlabs', elevenlabsSandbox),
  local: localSandbox,
  yookassa: yookassaSandbox,
};
