// Shared pieces of the vendors' model-list readers (each vendor's reader is in its folder). Wire formats are
// parsed there, at the edge; catalog:check only sees the answers.
import type { VendorLookup, VendorModels } from './adapter';
import { ProviderError, type ProviderName } from './types';

/** Model lists are paged; a vendor that never ends its pages is a fault, not a loop. */
export const MAX_LIST_PAGES = 50;

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function malformedList(provider: ProviderName, what: string): ProviderError {
  return new ProviderError('upstream', `${provider} model list: ${what}`, provider);
}

/** A lookup over a whole list, read once on the first id asked about. */
export function fromList(load: () => Promise<VendorModels>): VendorLookup {
  let listed: Promise<VendorModels> | undefined;
  return async (id) => {
    listed ??= load();
    return (await listed).get(id) ?? null;
  };
}
