import { hash, verify } from '@node-rs/argon2';

// argon2id with the library defaults (m=19 MiB, t=2, p=1: OWASP's minimum recommendation).
const ARGON2ID = 2;

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/**
 * A hash made with the same parameters as `hashPassword`: verifying against it costs what a
 * real check costs, so a sign-in with an unknown identifier answers no faster than one with a wrong password.
 */
const TIMING_EQUALISER_HASH = '$argon2id$v=19$m=19456,t=2,p=1$i67URwymXydSX9C6DYXBZQ$L2wPGeakzXSeg3TbBqWwHVppIfMqI1956Sb4/WC2zjQ';

/** One password check whose result is ignored: for sign-ins without an account (or without a password). */
export async function burnPasswordCheck(password: string): Promise<void> {
  await verifyPassword(TIMING_EQUALISER_HASH, password);
}
