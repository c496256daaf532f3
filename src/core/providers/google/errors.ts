import { FinishReason, ProviderError, ProviderErrorKind } from '../types';
import { GoogleStatus } from './wire';

/** Finish reasons that mean the output was withheld by a safety or policy filter. */
const POLICY_FINISH = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

export function mapFinishReason(reason: string | undefined): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason && POLICY_FINISH.has(reason)) return 'content_filter';
  return 'stop';
}

export function isPolicyFinish(reason: string | undefined): boolean {
  return reason !== undefined && POLICY_FINISH.has(reason);
}

export function blockedError(reason: string): ProviderError {
  return new ProviderError('content_policy', `google blocked the request (${reason})`, 'google');
}

const SAFETY_WORDS = /safety|responsible ai|prohibited|policy|sensitive/i;

/** Google answers a bad key with 400 INVALID_ARGUMENT: that is an auth failure for us. */
export function refineGoogleError(err: unknown): unknown {
  if (err instanceof ProviderError && err.kind === 'bad_request' && /API key (not valid|expired)|API_KEY_INVALID/i.test(err.message)) {
    return new ProviderError('auth', err.message, 'google', err.upstreamStatus);
  }
  return err;
}

/** Kind of a google.rpc.Status carried in a 200 body (stream error object, failed long-running operation). */
export function statusKind(status: GoogleStatus): ProviderErrorKind {
  const message = status.message ?? '';
  switch (status.status) {
    case 'RESOURCE_EXHAUSTED':
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
      return SAFETY_WORDS.test(message) ? 'content_policy' : 'bad_request';
  }
  // Operations carry the numeric gRPC code only; stream error objects carry the HTTP status.
  switch (status.code) {
    case 8: // RESOURCE_EXHAUSTED
    case 14: // UNAVAILABLE
    case 429:
    case 503:
      return 'overloaded';
    case 4: // DEADLINE_EXCEEDED
    case 504:
      return 'timeout';
    case 7: // PERMISSION_DENIED
    case 16: // UNAUTHENTICATED
    case 401:
    case 403:
      return 'auth';
    case 3: // INVALID_ARGUMENT
    case 9: // FAILED_PRECONDITION
    case 400:
      return SAFETY_WORDS.test(message) ? 'content_policy' : 'bad_request';
  }
  return SAFETY_WORDS.test(message) ? 'content_policy' : 'upstream';
}

export function statusError(status: GoogleStatus): ProviderError {
  return new ProviderError(statusKind(status), status.message ?? `google error ${status.status ?? status.code ?? ''}`.trim(), 'google');
}
