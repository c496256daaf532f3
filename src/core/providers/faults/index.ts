import type { ProviderErrorKind, ProviderName } from '../types';
import { anthropicFaults } from './anthropic';
import { bflFaults } from './bfl';
import { deepseekFaults } from './deepseek';
import { elevenlabsFaults } from './elevenlabs';
import { googleFaults } from './google';
import { openaiFaults } from './openai';
import { replicateFaults } from './replicate';
import { FaultTable, VendorFault, byStatus } from './table';
import { xaiFaults } from './xai';

export type { VendorFault } from './table';

const TABLES: Readonly<Record<ProviderName, FaultTable>> = {
  openai: openaiFaults,
  anthropic: anthropicFaults,
  google: googleFaults,
  xai: xaiFaults,
  deepseek: deepseekFaults,
  bfl: bflFaults,
  replicate: replicateFaults,
  elevenlabs: elevenlabsFaults,
  local: ({ status, message }) => byStatus(status, message),
};

/** The kind of a vendor's non-2xx answer, read with that vendor's own table. */
export function classifyFault(provider: ProviderName, fault: VendorFault): ProviderErrorKind {
  return TABLES[provider](fault);
}
