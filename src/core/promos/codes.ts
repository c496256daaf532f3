import crypto from 'node:crypto';

/** Letters and digits nobody confuses when reading them aloud (no 0/O, 1/I/L). */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const GENERATED_LENGTH = 10;

/** What a promo code may be: letters, digits, `-` and `_`; matched whatever the case. */
export const PROMO_CODE_PATTERN = /^[A-Za-z0-9_-]{3,40}$/;

export function newPromoCode(): string {
  let code = '';
  for (let i = 0; i < GENERATED_LENGTH; i++) code += ALPHABET[crypto.randomInt(ALPHABET.length)];
  return code;
}

export function normalizePromoCode(code: string): string {
  return code.trim().toUpperCase();
}
