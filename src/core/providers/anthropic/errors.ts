import { FinishReason, ProviderError, ProviderErrorKind } from '../types';

/** Error `type` values of the Messages API (HTTP bodies and mid-stream `error` events) to our kinds. */
export function anthropicErrorKind(type: string, message = ''): ProviderErrorKind {
  switch (type) {
    case 'overloaded_error':
    case 'rate_limit_error':
      return 'overloaded';
    case 'timeout_error':
      return 'timeout';
    case 'authentication_error':
    case 'permission_error':
      return 'auth';
    case 'invalid_request_error':
    case 'not_found_error':
    case 'request_too_large':
      return isPolicyMessage(message) ? 'content_policy' : 'bad_request';
    default:
      return 'upstream';
  }
}

/** Anthropic words output filtering as "Output blocked by content filtering policy" (a 400). */
export function isPolicyMessage(message: string): boolean {
  return /content filtering policy|usage policy|content.?policy/i.test(message);
}

/** Reclassifies errors from the shared HTTP helper where Anthropic's wording says policy. */
export function refineAnthropicError(err: unknown): unknown {
  if (err instanceof ProviderError && err.kind === 'bad_request' && isPolicyMessage(err.message)) {
    return new ProviderError('content_policy', err.message, 'anthropic', err.upstreamStatus);
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
