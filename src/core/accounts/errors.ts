import { DomainError } from '../errors';

export class AccountConflictError extends Error {
  constructor(readonly field: 'email' | 'phone' | 'telegram_id' | 'identity', message: string) {
    super(message);
    this.name = 'AccountConflictError';
  }
}

export class NotFoundError extends Error {
  constructor(readonly what: string) {
    super(`${what} not found`);
    this.name = 'NotFoundError';
  }
}

/** The plan is below what the model or the surface needs: HTTP 403 `Insufficient plan`, naming the plan. */
export class PlanTooLowError extends Error {
  constructor(
    readonly requiredPlan: string,
    message: string,
  ) {
    super(message);
    this.name = 'PlanTooLowError';
  }
}

/** Wrong email/phone/password, or a messenger login whose signature or age does not check out: HTTP 401. */
export class InvalidCredentialsError extends Error {
  constructor(message = 'Invalid email or password') {
    super(message);
    this.name = 'InvalidCredentialsError';
  }
}

/** An access, refresh, identity or reset token that is wrong, expired or revoked: HTTP 401 (400 for reset). */
export class InvalidTokenError extends Error {
  constructor(
    message = 'Invalid or expired token',
    readonly kind: 'access' | 'refresh' | 'identity' | 'reset' | 'verification' = 'access',
  ) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/** The account exists but is blocked by an operator: HTTP 403. */
export class AccountBlockedError extends Error {
  constructor() {
    super('This account is blocked');
    this.name = 'AccountBlockedError';
  }
}

/** A sign-in method whose configuration is missing (no bot token, no OIDC client id): HTTP 503. */
export class SignInUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignInUnavailableError';
  }
}

/** A per-account cap (API keys, assistants) is reached: HTTP 409. */
export class QuotaExceededError extends Error {
  constructor(
    readonly what: string,
    readonly limit: number,
  ) {
    super(`You can have at most ${limit} ${what}`);
    this.name = 'QuotaExceededError';
  }
}

/** Password sign-in of this account is locked after too many failures: HTTP 429 with retry_after. */
export class AccountLockedError extends DomainError {
  readonly code = 'account_locked';
  constructor(readonly retryAfterSeconds: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
    super(
      `Too many failed sign-ins: password sign-in for this account is locked for ${minutes} more minute${minutes === 1 ? '' : 's'}. ` +
        'Try again later, reset the password, or sign in another way.',
      { retry_after: retryAfterSeconds },
    );
  }
}

/** A per-email or per-account limit on a sign-in helper (forgot-password): HTTP 429 with retry_after. */
export class SignInThrottledError extends DomainError {
  readonly code = 'rate_limit_exceeded';
  constructor(readonly retryAfterSeconds: number, message: string) {
    super(message, { retry_after: retryAfterSeconds });
  }
}

/** A Telegram Login Widget payload presented a second time: HTTP 401. */
export class LoginReplayedError extends DomainError {
  readonly code = 'login_replayed';
  constructor() {
    super('This sign-in was already used: sign in with the messenger again');
  }
}
