import { FinishReason, ProviderError, ProviderErrorKind } from '../types';
import { googleFaultKind } from './faults';
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

/** Kind of a google.rpc.Status carried in a 200 body (stream error object, failed long-running operation). */
export function statusKind(status: GoogleStatus): ProviderErrorKind {
  return googleFaultKind({ rpc: status.status, code: status.code, message: status.message ?? '' });
}

export function statusError(status: GoogleStatus): ProviderError {
  return new ProviderError(statusKind(status), status.message ?? `google error ${status.status ?? status.code ?? ''}`.trim(), 'google');
}
