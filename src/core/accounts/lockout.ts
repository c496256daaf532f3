import { DataSource } from 'typeorm';
import { AccountLockedError } from './errors';

/** 10 failed password sign-ins within 15 minutes lock password sign-in of the account for 15 minutes. */
export const PASSWORD_LOCKOUT = { maxFailures: 10, windowSeconds: 900, lockSeconds: 900 } as const;

/**
 * The per-account lockout, kept in PostgreSQL so it holds across client addresses and instances (unlike the
 * per-IP limits, which a botnet spreads thin).
 */
export class PasswordLockout {
  constructor(private readonly ds: DataSource) {}

  /** @throws AccountLockedError while the account is locked */
  async assertOpen(userId: number): Promise<void> {
    const rows: { retry_after: number }[] = await this.ds.query(
      `SELECT ceil(extract(epoch FROM locked_until - now()))::int AS retry_after
         FROM sign_in_lockouts WHERE user_id = $1 AND locked_until > now()`,
      [userId],
    );
    if (rows[0]) throw new AccountLockedError(Math.max(1, rows[0].retry_after));
  }

  /** Counts a failure; the one that reaches the maximum locks the account. */
  async recordFailure(userId: number): Promise<void> {
    const { maxFailures, windowSeconds, lockSeconds } = PASSWORD_LOCKOUT;
    // One statement: concurrent failures each count, and the count that reaches the maximum sets the lock.
    await this.ds.query(
      `INSERT INTO sign_in_lockouts AS l (user_id, failures, window_started_at) VALUES ($1, 1, now())
       ON CONFLICT (user_id) DO UPDATE SET
         failures = CASE WHEN l.window_started_at > now() - make_interval(secs => $2) THEN l.failures + 1 ELSE 1 END,
         window_started_at = CASE WHEN l.window_started_at > now() - make_interval(secs => $2) THEN l.window_started_at ELSE now() END,
         locked_until = CASE
           WHEN l.window_started_at > now() - make_interval(secs => $2) AND l.failures + 1 >= $3 THEN now() + make_interval(secs => $4)
           ELSE l.locked_until END`,
      [userId, windowSeconds, maxFailures, lockSeconds],
    );
  }

  /** A successful sign-in starts the count afresh. */
  async clear(userId: number): Promise<void> {
    await this.ds.query('DELETE FROM sign_in_lockouts WHERE user_id = $1 AND (locked_until IS NULL OR locked_until <= now())', [userId]);
  }

  /** Ends a lock at once (the owner proved control: a password reset). */
  async lift(userId: number): Promise<void> {
    await this.ds.query('DELETE FROM sign_in_lockouts WHERE user_id = $1', [userId]);
  }
}
