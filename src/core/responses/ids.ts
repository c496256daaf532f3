import crypto from 'node:crypto';

/** `resp_` and 48 hex characters, the length of OpenAI's ids. */
export function newResponseId(): string {
  return `resp_${crypto.randomBytes(24).toString('hex')}`;
}
