import crypto from 'node:crypto';

/** Letters and digits nobody confuses when reading a link aloud (no 0/o, 1/l/i). */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const CODE_LENGTH = 8;

/** A fresh random invitation code. */
export function newReferralCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[crypto.randomInt(ALPHABET.length)];
  return code;
}

/** What a link may carry as a code (the `/start` parameter's own characters); codes are matched lower-cased. */
export const REFERRAL_CODE_PATTERN = /^[A-Za-z0-9_-]{1,60}$/;

export function normalizeReferralCode(code: string): string {
  return code.trim().toLowerCase();
}
