import type { FaultTable, ProviderErrorKind } from './types';

// Shared readings of vendor failures; each vendor's own table is `<vendor>/faults.ts`, named by its definition.

export type { FaultTable, VendorFault } from './types';

const POLICY_WORDS = /content.?policy|safety|moderat|nsfw|flagged|responsible ai/i;

export function mentionsPolicy(message: string): boolean {
  return POLICY_WORDS.test(message);
}

/** What a status means when the vendor's body says nothing more specific. */
export function byStatus(status: number, message = ''): ProviderErrorKind {
  if (status === 429) return 'rate_limited';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 402) return 'quota';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 401 || status === 403) return 'auth';
  if (status >= 400 && status < 500) return mentionsPolicy(message) ? 'content_policy' : 'bad_request';
  return 'upstream';
}

/** `body.error` (or `body.detail`) as a record, whatever the vendor nests it in. */
export function errorObject(body: unknown, key = 'error'): Record<string, unknown> {
  if (!body || typeof body !== 'object') return {};
  const inner = (body as Record<string, unknown>)[key];
  return inner && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
}

export function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}

/** For vendors whose answers say nothing beyond their status (and the in-process tools). */
export const statusFaults: FaultTable = ({ status, message }) => byStatus(status, message);
