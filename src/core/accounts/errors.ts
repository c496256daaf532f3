import { DomainError } from '../errors';

/** The email, phone, Telegram id or identity already belongs to another account. */
export class AccountConflictError extends DomainError {
  readonly code = 'account_exists';
  constructor(
    readonly field: 'email' | 'phone' | 'telegram_id' | 'identity',
    message: string,
  ) {
    super(message, { field });
  }
}

export class NotFoundError extends DomainError {
  readonly code = 'not_found';
  constructor(readonly what: string) {
    super(`${what} not found`, { what });
  }
}

/** The plan is below what the model or the surface needs; names the plan required. */
export class PlanTooLowError extends DomainError {
  readonly code = 'insufficient_plan';
  constructor(
    readonly requiredPlan: string,
    message: string,
    /** The account whose API key was refused (not rendered): the door records the refusal in its request log. */
    readonly account?: { userId: number; keyId: number },
  ) {
    super(message, { required_plan: requiredPlan });
  }
}

/** Wrong email/phone/password, or a messenger login whose signature or age does not check out. */
export class InvalidCredentialsError extends DomainError {
  readonly code = 'invalid_credentials';
  constructor(message = 'Invalid email or password') {
    super(message);
  }
}

/** An access, refresh, identity or reset token that is wrong, expired or revoked (a reset token has its own code). */
export class InvalidTokenError extends DomainError {
  readonly code: 'invalid_token' | 'invalid_reset_token' | 'invalid_verification_token';
  constructor(
    message = 'Invalid or expired token',
    readonly kind: 'access' | 'refresh' | 'identity' | 'reset' | 'verification' = 'access',
  ) {
    super(message, { kind });
    this.code = kind === 'reset' ? 'invalid_reset_token' : kind === 'verification' ? 'invalid_verification_token' : 'invalid_token';
  }
}

/** The account exists but is blocked by an operator. */
export class AccountBlockedError extends DomainError {
  readonly code = 'account_blocked';
  constructor() {
    super('This account is blocked');
  }
}

/** A sign-in method whose configuration is missing (no bot token, no OIDC client id). */
export class SignInUnavailableError extends DomainError {
  readonly code = 'sign_in_unavailable';
  constructor(message: string) {
    super(message);
  }
}

/** A per-account cap (API keys, assistants) is reached. */
export class QuotaExceededError extends DomainError {
  readonly code = 'quota_exceeded';
  constructor(
    readonly what: string,
    readonly limit: number,
  ) {
    super(`You can have at most ${limit} ${what}`, { what, limit });
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

/** A Telegram Login Widget payload presented a second time: HTTP 401. */
export class LoginReplayedError extends DomainError {
  readonly code = 'login_replayed';
  constructor(message = 'This sign-in was already used: sign in with the messenger again') {
    super(message);
  }
}

/** The SMTP relay refused or could not take a mail (kept apart from the mailer, so nodemailer loads only with SMTP). */
export class SmtpError extends DomainError {
  readonly code = 'mail_failed';
}
