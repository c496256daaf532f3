import { DataSource } from 'typeorm';
import { GenerationEntity, UserEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import type { ResultStorage } from '../media/storage';
import { InvalidCredentialsError, NotFoundError } from './errors';
import { hashPassword, verifyPassword } from './passwords';
import { hashRefreshToken } from './refresh-tokens';

/** A sign-in session (a refresh-token family) as its owner sees it. */
export interface SessionView {
  id: string;
  created_at: string;
  last_used_at: string;
  user_agent: string | null;
  current: boolean;
}

const MAX_USER_AGENT_LENGTH = 300;

/**
 * What an account holder manages about their own account: the password, the sign-in sessions, and the account's
 * deletion. (Sign-in itself, and the verification mail, are AuthService's.)
 */
/**
 * What must happen before an account is deleted: its checkouts canceled (PaymentService.closeAccount), its running
 * answers cut and its pending generations settled (services.ts).
 */
export interface AccountClosing {
  closeAccount(userId: number): Promise<unknown>;
}

export class AccountManagement {
  constructor(
    private readonly ds: DataSource,
    private readonly storage: ResultStorage,
    private readonly log: Logger,
    private readonly payments?: AccountClosing,
    private readonly generations?: AccountClosing,
  ) {}

  /**
   * Sets a new password after checking the current one; every other session ends (the current one, when given,
   * stays). @throws InvalidCredentialsError when the current password is wrong or the account has none
   */
  async changePassword(userId: number, current: string, next: string, keepSession?: string): Promise<{ sessionsEnded: number }> {
    const user = await this.ds.getRepository(UserEntity).findOneBy({ id: userId });
    if (!user) throw new NotFoundError('Account');
    if (!user.passwordHash || !(await verifyPassword(user.passwordHash, current))) {
      throw new InvalidCredentialsError('The current password is wrong');
    }
    const passwordHash = await hashPassword(next);
    return this.ds.transaction(async (em) => {
      await em.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [userId, passwordHash]);
      const ended: { family_id: string }[] = await em.query(
        `WITH ended AS (
           UPDATE refresh_tokens SET revoked_at = now()
            WHERE user_id = $1 AND revoked_at IS NULL AND family_id IS DISTINCT FROM $2::uuid
            RETURNING family_id
         ) SELECT DISTINCT family_id FROM ended`,
        [userId, keepSession ?? null],
      );
      return { sessionsEnded: ended.length };
    });
  }

  /** Remembers which browser or client holds a freshly issued refresh token (for the sessions list). */
  async noteUserAgent(refreshToken: string, userAgent: string): Promise<void> {
    if (!userAgent) return;
    await this.ds.query('UPDATE refresh_tokens SET user_agent = $2 WHERE token_hash = $1 AND user_agent IS NULL', [
      hashRefreshToken(refreshToken),
      userAgent.slice(0, MAX_USER_AGENT_LENGTH),
    ]);
  }

  /** The account's live sessions, the most recently used first; `current` marks the caller's own. */
  async sessions(userId: number, currentSession?: string): Promise<SessionView[]> {
    const rows: { id: string; created_at: Date; last_used_at: Date; user_agent: string | null }[] = await this.ds.query(
      `SELECT family_id AS id, min(created_at) AS created_at, max(created_at) AS last_used_at,
              (array_agg(user_agent ORDER BY created_at) FILTER (WHERE user_agent IS NOT NULL))[1] AS user_agent
         FROM refresh_tokens WHERE user_id = $1
        GROUP BY family_id
       HAVING bool_or(rotated_at IS NULL AND revoked_at IS NULL AND expires_at > now())
        ORDER BY max(created_at) DESC`,
      [userId],
    );
    return rows.map((r) => ({
      id: r.id,
      created_at: new Date(r.created_at).toISOString(),
      last_used_at: new Date(r.last_used_at).toISOString(),
      user_agent: r.user_agent,
      current: r.id === currentSession,
    }));
  }

  /** Ends one live session of the account (its access tokens stop working too). @throws NotFoundError */
  async revokeSession(userId: number, sessionId: string): Promise<void> {
    const rows: unknown[] = await this.ds.query(
      `WITH ended AS (
         UPDATE refresh_tokens SET revoked_at = now()
          WHERE user_id = $1 AND family_id = $2::uuid AND revoked_at IS NULL RETURNING id
       ) SELECT id FROM ended`,
      [userId, sessionId],
    );
    if (rows.length === 0) throw new NotFoundError('Session');
  }

  /**
   * Deletes the account and everything it owns (generations and their files, keys, sessions, schedules, webhooks,
   * assistants, settings, payment methods and orders). Its open checkouts are canceled first and its subscriptions
   * stopped, so no payment fulfils anything afterwards (one that still succeeds is refunded). Its ledger rows stay,
   * with the user id cleared, so the books still add up. A password account must confirm with its password.
   * @throws InvalidCredentialsError
   */
  async deleteAccount(userId: number, password: string | undefined): Promise<void> {
    const user = await this.ds.getRepository(UserEntity).findOneBy({ id: userId });
    if (!user) throw new NotFoundError('Account');
    if (user.passwordHash && !(password && (await verifyPassword(user.passwordHash, password)))) {
      throw new InvalidCredentialsError('The password is wrong');
    }
    const files = await this.ds
      .getRepository(GenerationEntity)
      .createQueryBuilder('g')
      .select('g.resultKey', 'key')
      .where('g.userId = :userId AND g.resultKey IS NOT NULL', { userId })
      .getRawMany<{ key: string }>();
    await this.payments?.closeAccount(userId);
    // Its rows go with it: what was delivered is billed first (the ledger keeps its rows).
    await this.generations?.closeAccount(userId);
    await this.ds.query('DELETE FROM users WHERE id = $1', [userId]);
    for (const { key } of files) {
      await this.storage.delete(key).catch((err: Error) => this.log.warn({ err: err.message, key }, 'a deleted account’s file stayed'));
    }
  }
}
