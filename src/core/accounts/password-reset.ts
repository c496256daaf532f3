import crypto from 'node:crypto';
import { DataSource } from 'typeorm';
import { inTransaction } from '../../db/transaction';
import { InvalidTokenError } from './errors';

/** Reset links work for one hour, once. */
export const RESET_TOKEN_TTL_SECONDS = 3600;

const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Issues a single-use reset token (only its hash is stored); earlier unused tokens of the user stop working. */
export async function issueResetToken(ds: DataSource, userId: number): Promise<{ token: string; expiresAt: Date }> {
  const token = crypto.randomBytes(32).toString('base64url');
  const expiresAt = await inTransaction(ds, async (em) => {
    await em.query('UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL', [userId]);
    const rows: { expires_at: Date }[] = await em.query(
      `INSERT INTO password_resets (user_id, token_hash, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING expires_at`,
      [userId, hash(token), RESET_TOKEN_TTL_SECONDS],
    );
    return rows[0].expires_at;
  });
  return { token, expiresAt };
}

/**
 * Spends a reset token and stores the new password hash, in one transaction.
 * @returns the user whose password changed. @throws InvalidTokenError (unknown, used or expired token)
 */
export async function consumeResetToken(ds: DataSource, token: string, passwordHash: string): Promise<number> {
  if (!TOKEN_SHAPE.test(token)) throw new InvalidTokenError('Invalid or expired reset token', 'reset');
  const userId = await inTransaction(ds, async (em) => {
    const rows: { user_id: number }[] = await em.query(
      `WITH spent AS (
         UPDATE password_resets SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id
       ) SELECT user_id FROM spent`,
      [hash(token)],
    );
    if (!rows[0]) return null;
    await em.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [rows[0].user_id, passwordHash]);
    return rows[0].user_id;
  });
  if (userId === null) throw new InvalidTokenError('Invalid or expired reset token', 'reset');
  return userId;
}
