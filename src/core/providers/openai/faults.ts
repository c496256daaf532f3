import { FaultTable, byStatus, errorObject, mentionsPolicy, stringField } from '../faults';

// https://platform.openai.com/docs/guides/error-codes: a 429 is either a rate limit (`rate_limit_exceeded`,
// `slow_down`: wait and retry) or exhausted billing (type `insufficient_quota`, codes such as
// `credit_balance_exhausted` or `*_spend_limit_exceeded`: retrying never helps). 503 is overload, 500 a server
// error; images refuse prompts with `content_policy_violation` / `moderation_blocked`.

const BILLING_CODES = /^(insufficient_quota|credit_balance_exhausted|billing_hard_limit_reached|\w+_(spend|usage)_limit_exceeded)$/;
const POLICY_CODES = new Set(['content_policy_violation', 'moderation_blocked', 'content_filter']);

export const openaiFaults: FaultTable = ({ status, body, message }) => {
  const error = errorObject(body);
  const type = stringField(error, 'type') ?? '';
  const code = stringField(error, 'code') ?? '';
  if (type === 'insufficient_quota' || BILLING_CODES.test(code)) return 'quota';
  if (POLICY_CODES.has(code) || (status === 400 && mentionsPolicy(message))) return 'content_policy';
  if (status === 429) return 'rate_limited';
  if (status === 503 || code === 'server_is_overloaded') return 'overloaded';
  return byStatus(status, message);
};
