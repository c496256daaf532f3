import type { ProviderErrorKind } from '../types';

/** One non-2xx answer of a vendor, as its fault table sees it. */
export interface VendorFault {
  status: number;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: unknown;
  /** The human message the vendor gave (or `HTTP <status>`). */
  message: string;
}

/** A vendor's documented errors mapped onto our kinds; one per vendor, in this folder. */
export type FaultTable = (fault: VendorFault) => ProviderErrorKind;

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
