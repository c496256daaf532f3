import type { ProviderAdapter } from './adapter';
import { anthropicAdapter } from './anthropic';
import { bflAdapter } from './bfl';
import { deepseekAdapter } from './deepseek';
import { elevenlabsAdapter } from './elevenlabs';
import { googleAdapter } from './google';
import { localAdapter } from './local';
import { openaiAdapter } from './openai';
import { replicateAdapter } from './replicate';
import type { ProviderName } from './types';
import { xaiAdapter } from './xai';

/**
 * Every vendor, once: adding one is its folder (`<vendor>/index.ts` declares it) and its line here. The names,
 * `<VENDOR>_API_KEY` / `<VENDOR>_BASE_URL`, the connections, the catalog check and the sandbox's model lists all
 * follow from this list; a catalog row or a fake naming a vendor that is not here fails the type check.
 */
const VENDORS = [
  openaiAdapter,
  anthropicAdapter,
  googleAdapter,
  xaiAdapter,
  deepseekAdapter,
  bflAdapter,
  replicateAdapter,
  elevenlabsAdapter,
  localAdapter,
] as const;

declare module './types' {
  /** The names of the vendors listed above (see `ProviderName`). */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging needs an interface
  interface VendorRegistry extends Record<(typeof VENDORS)[number]['name'], true> {}
}

export const PROVIDER_NAMES: readonly ProviderName[] = VENDORS.map((v) => v.name);

/** Each vendor's definition by its name. */
export const providerAdapters: Readonly<Record<ProviderName, ProviderAdapter>> = Object.freeze(
  Object.fromEntries(VENDORS.map((v) => [v.name, v])) as Record<ProviderName, ProviderAdapter>,
);
