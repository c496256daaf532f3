import { FaultTable, byStatus } from '../faults';

// https://docs.bfl.ai: 402 insufficient credits, 429 too many active tasks (retry later), 403 a refused key,
// 422 validation errors; moderated prompts come back as a task status, not as an HTTP error.

export const bflFaults: FaultTable = ({ status, message }) => {
  if (status === 402 || /insufficient credits/i.test(message)) return 'quota';
  return byStatus(status, message);
};
