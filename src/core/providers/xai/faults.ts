import { FaultTable, byStatus } from '../faults';

// xAI speaks the OpenAI error shape, with its own wording: a wrong key is a 400 "Incorrect API key provided", a
// team without credits or past its spending limit is a 403, and 429 is its rate limit.

export const xaiFaults: FaultTable = ({ status, message }) => {
  if (/incorrect api key|invalid api key|no api key/i.test(message)) return 'auth';
  if (/credits?|spending limit|billing|licen[cs]e/i.test(message) && (status === 403 || status === 402 || status === 429)) return 'quota';
  return byStatus(status, message);
};
