import { FaultTable, byStatus, errorObject, stringField } from '../faults';

// https://docs.anthropic.com/en/api/errors: the body's `error.type` names the failure. 402 billing_error and a
// 429 whose `error.details.error_code` is `enforced_spend_limit_reached` mean no money (no retry); 429
// rate_limit_error waits for `retry-after`; 529 overloaded_error and 500 api_error are transient.

export function anthropicKindOfType(type: string, message = '') {
  switch (type) {
    case 'billing_error':
      return 'quota' as const;
    case 'rate_limit_error':
      return 'rate_limited' as const;
    case 'overloaded_error':
      return 'overloaded' as const;
    case 'timeout_error':
      return 'timeout' as const;
    case 'authentication_error':
    case 'permission_error':
      return 'auth' as const;
    case 'api_error':
      return 'upstream' as const;
    case 'invalid_request_error':
    case 'not_found_error':
    case 'request_too_large':
      if (/credit balance is too low|spend limit/i.test(message)) return 'quota' as const;
      return /content filtering policy|usage policy|content.?policy/i.test(message)
        ? ('content_policy' as const)
        : ('bad_request' as const);
    default:
      return undefined;
  }
}

export const anthropicFaults: FaultTable = ({ status, body, message }) => {
  const error = errorObject(body);
  const details = errorObject(error, 'details');
  if (stringField(details, 'error_code') === 'enforced_spend_limit_reached') return 'quota';
  return anthropicKindOfType(stringField(error, 'type') ?? '', message) ?? byStatus(status, message);
};
