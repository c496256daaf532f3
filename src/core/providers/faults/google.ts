import { FaultTable, byStatus, errorObject, stringField } from './table';

// https://ai.google.dev/gemini-api/docs/troubleshooting: errors are google.rpc.Status bodies. 429
// RESOURCE_EXHAUSTED is a rate limit (with a RetryInfo `retryDelay`), 503 UNAVAILABLE overload, 500 INTERNAL a
// server error, 504 DEADLINE_EXCEEDED a timeout; a bad key is a 400 INVALID_ARGUMENT "API key not valid"; a
// FAILED_PRECONDITION about billing means the project cannot pay.

const SAFETY = /safety|responsible ai|prohibited|policy|sensitive/i;

export const googleFaults: FaultTable = ({ status, body, message }) => {
  const rpc = stringField(errorObject(body), 'status') ?? '';
  if (/API key (not valid|expired)|API_KEY_INVALID/i.test(message)) return 'auth';
  if (status === 402 || /billing|prepay|credits? (are )?(depleted|exhausted)/i.test(message)) return 'quota';
  switch (rpc) {
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
  return byStatus(status, message);
};
