// Shared pieces of the vendors' model-list readers (each vendor's reader is in its folder). Wire formats are
// parsed there, at the edge; catalog:check only sees the answers.
import type { VendorModel } from './adapter';
import { ProviderError, type ProviderName } from './types';

/** Model lists are paged; a vendor that never ends its pages is a fault, not a loop. */
export const MAX_LIST_PAGES = 50;

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function malformedList(provider: ProviderName, what: string): ProviderError {
  return new ProviderError('upstream', `${provider} model list: ${what}`, provider);
}

/** A vendor's "retrieve a model": its answer, or null when it says not found (404). */
export async function orNotFound(retrieve: () => Promise<VendorModel>): Promise<VendorModel | null> {
  try {
    return await retrieve();
  } catch (err) {
    if (err instanceof ProviderError && err.upstreamStatus === 404) return null;
    throw err;
  }
}
