import { FaultTable, byStatus } from '../faults';

// https://replicate.com/docs/reference/http: problem+json bodies (`detail`). 401 unauthenticated, 402 billing
// required or spend limit, 422 invalid input, 429 throttled with `retry-after`; failed predictions (including the
// safety checker's E005) are a prediction status, not an HTTP error.

export const replicateFaults: FaultTable = ({ status, message }) => {
  if (status === 402 || /billing|spend limit|payment required/i.test(message)) return 'quota';
  return byStatus(status, message);
};
