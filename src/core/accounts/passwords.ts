import type * as Argon2 from '@node-rs/argon2';

/** The native argon2 addon loads on the first password hashed or checked: a process serving only API keys maps none of it. */
let argon2: typeof Argon2 | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a deferred load
const lib = (): typeof Argon2 => (argon2 ??= require('@node-rs/argon2') as typeof Argon2);

// argon2id with the library defaults (m=19 MiB, t=2, p=1: OWASP's minimum recommendation).
const ARGON2ID = 2;

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return lib().hash(password, { algorithm: ARGON2ID });
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const { verify } = lib(); // outside the try: a missing addon is an error, not a wrong password
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
