import crypto from 'node:crypto';
import { DataSource } from 'typeorm';
import { inTransaction } from '../../db/transaction';
import { InvalidTokenError } from './errors';

/** Refresh tokens live 30 days; each refresh replaces the token with a new one of the same family. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 86_400;

export interface IssuedRefreshToken {
  token: string;
  familyId: string;
  userId: number;
  expiresAt: Date;
}

export function hashRefreshToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/** Our tokens are 43 base64url characters (32 random bytes); anything else is refused without a query. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Rotation families (RFC 9700, section 4.14.2): every refresh marks the presented token rotated and issues a
 * successor in the same family. Presenting a rotated token again means it leaked, so the whole family (the
 * attacker's and the user's copies) is revoked. Only hashes are stored.
 */
export class RefreshTokens {
  constructor(private readonly ds: DataSource) {}

  /** Starts a new family (a sign-in). */
  async issue(userId: number): Promise<IssuedRefreshToken> {
    return this.insert(this.ds, userId, crypto.randomUUID());
  }

  private async insert(db: { query: DataSource['query'] }, userId: number, familyId: string): Promise<IssuedRefreshToken> {
    const token = crypto.randomBytes(32).toString('base64url');
    const rows: { expires_at: Date }[] = await db.query(
      `INSERT INTO refresh_tokens (id, family_id, user_id, token_hash, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING expires_at`,
      [crypto.randomUUID(), familyId, userId, hashRefreshToken(token), REFRESH_TOKEN_TTL_SECONDS],
    );
    return { token, familyId, userId, expiresAt: rows[0].expires_at };
  }

  /**
   * Exchanges a live token for its successor. A token that was already rotated revokes its family.
   * @throws InvalidTokenError
   */
  async rotate(token: string): Promise<IssuedRefreshToken> {
    if (!TOKEN_SHAPE.test(token)) throw new InvalidTokenError('Invalid or expired refresh token', 'refresh');
    const hash = hashRefreshToken(token);
    const next = await inTransaction(this.ds, async (em) => {
      // Single-shot: of two concurrent refreshes with the same token exactly one gets the row.
      const rows: { family_id: string; user_id: number }[] = await em.query(
        `WITH rotated AS (
           UPDATE refresh_tokens SET rotated_at = now()
            WHERE token_hash = $1 AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > now()
            RETURNING family_id, user_id
         ) SELECT family_id, user_id FROM rotated`,
        [hash],
      );
      const [row] = rows;
      return row ? this.insert(em, row.user_id, row.family_id) : null;
    });
    if (next) return next;

    const known: { family_id: string; rotated_at: Date | null }[] = await this.ds.query(
      'SELECT family_id, rotated_at FROM refresh_tokens WHERE token_hash = $1',
      [hash],
    );
    if (known[0]?.rotated_at) {
      await this.revokeFamily(known[0].family_id);
      throw new InvalidTokenError('Refresh token reuse detected: the session was ended, please sign in again', 'refresh');
    }
    throw new InvalidTokenError('Invalid or expired refresh token', 'refresh');
  }

  /** The family of a token, or null (unknown token). */
  async familyOf(token: string): Promise<string | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const rows: { family_id: string }[] = await this.ds.query('SELECT family_id FROM refresh_tokens WHERE token_hash = $1', [
      hashRefreshToken(token),
    ]);
    return rows[0]?.family_id ?? null;
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.ds.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [familyId]);
  }

  /** Ends every session of a user (after a password reset). */
  async revokeAllForUser(userId: number): Promise<void> {
    await this.ds.query('UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
  }

  /** A family is live while its newest token is neither rotated, revoked nor expired. */
  async isFamilyActive(familyId: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      `SELECT 1 FROM refresh_tokens
        WHERE family_id = $1 AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > now() LIMIT 1`,
      [familyId],
    );
    return rows.length > 0;
  }
}
