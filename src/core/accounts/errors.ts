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
    readonly kind: 'access' | 'refresh' | 'identity' | 'reset' = 'access',
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
