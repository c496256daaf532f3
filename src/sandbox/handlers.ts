import { ProviderName } from '../core/providers/types';
import { anthropicSandbox } from './anthropic';
import { bflSandbox } from './bfl';
import { deepseekSandbox } from './deepseek';
import { elevenlabsSandbox } from './elevenlabs';
import { googleSandbox } from './google';
import { localSandbox } from './local';
import { openaiSandbox } from './openai';
import { replicateSandbox } from './replicate';
import { SandboxHandler } from './types';
import { xaiSandbox } from './xai';
import { yookassaSandbox } from './yookassa';

/** Every vendor's fake, for the sandbox upstream that `npm start` runs when a provider has no credentials. */
export const sandboxHandlers: Record<ProviderName | 'yookassa', SandboxHandler> = {
  openai: openaiSandbox,
  anthropic: anthropicSandbox,
  google: googleSandbox,
  xai: xaiSandbox,
  deepseek: deepseekSandbox,
  bfl: bflSandbox,
  replicate: replicateSandbox,
  elevenlabs: elevenlabsSandbox,
  local: localSandbox,
  yookassa: yookassaSandbox,
};
