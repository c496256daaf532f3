import crypto from 'node:crypto';
import { DataSource } from 'typeorm';
import { inTransaction } from '../../db/transaction';
import { InvalidTokenError } from './errors';

/** Verification links work for two days, once. */
export const VERIFICATION_TOKEN_TTL_SECONDS = 2 * 86_400;

const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const invalid = () => new InvalidTokenError('Invalid or expired verification token', 'verification');

/** Issues a single-use token proving the account owns `email` (only its hash is stored). */
export async function issueVerificationToken(ds: DataSource, userId: number, email: string): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url');
  await ds.query(
    `INSERT INTO email_verifications (user_id, email, token_hash, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
    [userId, email, hash(token), VERIFICATION_TOKEN_TTL_SECONDS],
  );
  return token;
}

/**
 * Spends a verification token and marks the account's email verified, provided the account still has the
 * email the link was sent to. @returns the user id. @throws InvalidTokenError (unknown, used, expired, stale)
 */
export async function consumeVerificationToken(ds: DataSource, token: string): Promise<number> {
  if (!TOKEN_SHAPE.test(token)) throw invalid();
  const userId = await inTransaction(ds, async (em) => {
    const rows: { user_id: number }[] = await em.query(
      `WITH spent AS (
         UPDATE email_verifications SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id, email
       ), verified AS (
         UPDATE users u SET email_verified_at = coalesce(u.email_verified_at, now()), updated_at = now()
           FROM spent WHERE u.id = spent.user_id AND u.email = spent.email
         RETURNING u.id
       ) SELECT id AS user_id FROM verified`,
      [hash(token)],
    );
    return rows[0]?.user_id ?? null;
  });
  if (userId === null) throw invalid();
  return userId;
}
