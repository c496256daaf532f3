import crypto from 'node:crypto';
import { DataSource } from 'typeorm';
import { AccountLockedError } from './errors';

/** 10 failed password sign-ins within 15 minutes lock password sign-in with that identifier for 15 minutes. */
export const PASSWORD_LOCKOUT = { maxFailures: 10, windowSeconds: 900, lockSeconds: 900 } as const;

/** What a password sign-in names: an email or a phone number, as submitted (normalised here). */
export type SignInIdentifier = { email: string } | { phone: string };

/** The stored key of an identifier: a SHA-256, so what strangers type is not kept as text. */
export function identifierKey(identifier: SignInIdentifier): string {
  const text = 'email' in identifier ? `email:${identifier.email.trim().toLowerCase()}` : `phone:${identifier.phone.trim()}`;
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The password lockout, counted per submitted identifier whether or not an account has it: an unknown email
 * locks after the same 10 failures as a known one, so the answers never tell which exist. Kept in PostgreSQL so it
 * holds across client addresses and instances (unlike the per-IP limits, which a botnet spreads thin).
 */
export class PasswordLockout {
  constructor(private readonly ds: DataSource) {}

  /** @throws AccountLockedError while the identifier is locked */
  async assertOpen(identifier: SignInIdentifier): Promise<void> {
    const rows: { retry_after: number }[] = await this.ds.query(
      `SELECT ceil(extract(epoch FROM locked_until - now()))::int AS retry_after
         FROM sign_in_lockouts WHERE identifier_hash = $1 AND locked_until > now()`,
      [identifierKey(identifier)],
    );
    if (rows[0]) throw new AccountLockedError(Math.max(1, rows[0].retry_after));
  }

  /** Counts a failure; the one that reaches the maximum sets the lock. */
  async recordFailure(identifier: SignInIdentifier): Promise<void> {
    const { maxFailures, windowSeconds, lockSeconds } = PASSWORD_LOCKOUT;
    // One statement: concurrent failures each count, and the count that reaches the maximum sets the lock.
    await this.ds.query(
      `INSERT INTO sign_in_lockouts AS l (identifier_hash, failures, window_started_at) VALUES ($1, 1, now())
       ON CONFLICT (identifier_hash) DO UPDATE SET
         failures = CASE WHEN l.window_started_at > now() - make_interval(secs => $2) THEN l.failures + 1 ELSE 1 END,
         window_started_at = CASE WHEN l.window_started_at > now() - make_interval(secs => $2) THEN l.window_started_at ELSE now() END,
         locked_until = CASE
           WHEN l.window_started_at > now() - make_interval(secs => $2) AND l.failures + 1 >= $3 THEN now() + make_interval(secs => $4)
           ELSE l.locked_until END`,
      [identifierKey(identifier), windowSeconds, maxFailures, lockSeconds],
    );
  }

  /** A successful sign-in starts the count afresh. */
  async clear(identifier: SignInIdentifier): Promise<void> {
    await this.ds.query('DELETE FROM sign_in_lockouts WHERE identifier_hash = $1 AND (locked_until IS NULL OR locked_until <= now())', [
      identifierKey(identifier),
    ]);
  }

  /** Ends the locks of an account's identifiers at once (the owner proved control: a password reset). */
  async lift(identifiers: SignInIdentifier[]): Promise<void> {
    if (identifiers.length === 0) return;
    await this.ds.query('DELETE FROM sign_in_lockouts WHERE identifier_hash = ANY($1)', [identifiers.map(identifierKey)]);
  }

  /** Forgets counts whose window and lock are both over (unknown identifiers would pile up otherwise). */
  async purgeExpired(): Promise<number> {
    const [, removed] = await this.ds.query<[unknown[], number]>(
      `DELETE FROM sign_in_lockouts
        WHERE window_started_at < now() - make_interval(secs => $1) AND (locked_until IS NULL OR locked_until < now())`,
      [PASSWORD_LOCKOUT.windowSeconds],
    );
    return removed;
  }
}
