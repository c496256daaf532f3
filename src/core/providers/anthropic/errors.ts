import { anthropicKindOfType } from './faults';
import { FinishReason, ProviderError, ProviderErrorKind } from '../types';

/** Error `type` values of the Messages API (mid-stream `error` events) to our kinds: the same table as HTTP errors. */
export function anthropicErrorKind(type: string, message = ''): ProviderErrorKind {
  return anthropicKindOfType(type, message) ?? 'upstream';
}

/** Anthropic words output filtering as "Output blocked by content filtering policy" (a 400). */
export function isPolicyMessage(message: string): boolean {
  return /content filtering policy|usage policy|content.?policy/i.test(message);
}

/** Reclassifies errors from the shared HTTP helper where Anthropic's wording says policy. */
export function refineAnthropicError(err: unknown): unknown {
  if (err instanceof ProviderError && err.kind === 'bad_request' && isPolicyMessage(err.message)) {
    return err.as('content_policy');
  }
  return err;
}

export function mapStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    case 'tool_use':
      return 'tool_calls';
    default:
      return 'stop'; // end_turn, stop_sequence, pause_turn
  }
}

export function refusalError(): ProviderError {
  return new ProviderError('content_policy', 'anthropic refused the request (stop_reason: refusal)', 'anthropic');
}
