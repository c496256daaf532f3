import type { ProviderErrorKind } from '../types';
import { FaultTable, byStatus, errorObject, stringField } from '../faults';

// https://ai.google.dev/gemini-api/docs/troubleshooting: errors are google.rpc.Status bodies. 429
// RESOURCE_EXHAUSTED is a rate limit (with a RetryInfo `retryDelay`), 503 UNAVAILABLE overload, 500 INTERNAL a
// server error, 504 DEADLINE_EXCEEDED a timeout; a bad key is a 400 INVALID_ARGUMENT "API key not valid"; a
// FAILED_PRECONDITION about billing means the project cannot pay. The same Status reaches us three ways: as an
// HTTP error body, as an error object inside a stream, and as a failed long-running operation (numeric code only).

const SAFETY = /safety|responsible ai|prohibited|policy|sensitive/i;
const BAD_KEY = /API key (not valid|expired)|API_KEY_INVALID/i;
const BILLING = /billing|prepay|credits? (are )?(depleted|exhausted)/i;

/** gRPC's numeric codes, as long-running operations carry them. */
const RPC_NAMES: Partial<Record<number, string>> = {
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  9: 'FAILED_PRECONDITION',
  11: 'OUT_OF_RANGE',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  16: 'UNAUTHENTICATED',
};

export interface GoogleFault {
  /** The Status name (`RESOURCE_EXHAUSTED`), when the body carries it. */
  rpc?: string;
  /** A numeric code: gRPC's (below 100, in operations) or the HTTP status (stream error objects, HTTP answers). */
  code?: number;
  message: string;
}

/** The one table of Google's failures. */
export function googleFaultKind({ rpc, code, message }: GoogleFault): ProviderErrorKind {
  const httpStatus = code !== undefined && code >= 100 ? code : undefined;
  if (BAD_KEY.test(message)) return 'auth';
  if (httpStatus === 402 || BILLING.test(message)) return 'quota';
  switch (rpc ?? (code !== undefined ? RPC_NAMES[code] : undefined)) {
    case 'RESOURCE_EXHAUSTED':
      return 'rate_limited';
    case 'UNAVAILABLE':
      return 'overloaded';
    case 'DEADLINE_EXCEEDED':
      return 'timeout';
    case 'PERMISSION_DENIED':
    case 'UNAUTHENTICATED':
      return 'auth';
    case 'INVALID_ARGUMENT':
    case 'FAILED_PRECONDITION':
    case 'OUT_OF_RANGE':
    case 'NOT_FOUND':
      return SAFETY.test(message) ? 'content_policy' : 'bad_request';
    case 'INTERNAL':
      return 'upstream';
  }
  if (httpStatus !== undefined) return byStatus(httpStatus, message);
  return SAFETY.test(message) ? 'content_policy' : 'upstream';
}

export const googleFaults: FaultTable = ({ status, body, message }) =>
  googleFaultKind({ rpc: stringField(errorObject(body), 'status'), code: status, message });
