import { DomainError } from '../errors';

/** No promo code is called that. */
export class PromoNotFoundError extends DomainError {
  readonly code = 'promo_not_found';
  constructor() {
    super('No promo code is called that');
  }
}

/** The code's expiry date has passed. */
export class PromoExpiredError extends DomainError {
  readonly code = 'promo_expired';
  constructor(readonly expiresAt: Date) {
    super('This promo code has expired', { expires_at: expiresAt.toISOString() });
  }
}

/** Every use of the code is taken. */
export class PromoExhaustedError extends DomainError {
  readonly code = 'promo_exhausted';
  constructor() {
    super('This promo code has been used up');
  }
}

/** This account redeemed the code before: once per account. */
export class PromoAlreadyRedeemedError extends DomainError {
  readonly code = 'promo_already_redeemed';
  constructor() {
    super('This account has already redeemed this promo code');
  }
}

/** An operator's new code is called like an existing one. */
export class PromoCodeTakenError extends DomainError {
  readonly code = 'promo_code_taken';
  constructor(readonly promoCode: string) {
    super(`A promo code called ${promoCode} exists already`, { field: 'code' });
  }
}
