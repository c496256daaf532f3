import { FaultTable, byStatus, errorObject, stringField } from '../faults';

// https://help.elevenlabs.io (API error codes 400/401/429): `{"detail": {"status"|"code", "message"}}`.
// `quota_exceeded` (a 401) means no credits left; `invalid_api_key` a refused key; 429
// `too_many_concurrent_requests` our concurrency and `system_busy` their load; the music endpoint refuses prompts
// with `bad_prompt`.

const POLICY = new Set(['bad_prompt', 'bad_composition_plan', 'content_policy_violation']);
const QUOTA = new Set(['quota_exceeded', 'payment_required', 'insufficient_credits']);

export const elevenlabsFaults: FaultTable = ({ status, body, message }) => {
  const detail = errorObject(body, 'detail');
  const code = stringField(detail, 'code') ?? stringField(detail, 'status') ?? '';
  if (QUOTA.has(code)) return 'quota';
  if (POLICY.has(code)) return 'content_policy';
  if (code === 'invalid_api_key' || code === 'missing_api_key') return 'auth';
  if (code === 'too_many_concurrent_requests' || code === 'concurrent_limit_exceeded' || code === 'rate_limit_exceeded')
    return 'rate_limited';
  if (code === 'system_busy') return 'overloaded';
  return byStatus(status, message);
};
