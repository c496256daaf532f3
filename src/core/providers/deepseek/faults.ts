import { FaultTable, byStatus } from '../faults';

// https://api-docs.deepseek.com/quick_start/error_codes: 400 invalid format, 401 authentication, 402 insufficient
// balance, 422 invalid parameters, 429 rate limit reached, 500 server error, 503 server overloaded.

export const deepseekFaults: FaultTable = ({ status, message }) => {
  if (status === 402 || /insufficient balance/i.test(message)) return 'quota';
  return byStatus(status, message);
};
