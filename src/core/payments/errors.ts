import { DomainError } from '../errors';

/** An article id that is not sold (unknown or inactive). No fallback: the caller asked for something else. */
export class UnknownArticleError extends DomainError {
  readonly code = 'unknown_article';
  constructor(readonly articleId: string) {
    super(`Unknown article id: ${articleId.slice(0, 64)}`, { field: 'article_id' });
  }
}

/** No such order for this user (another user's order is "not found" too). */
export class OrderNotFoundError extends DomainError {
  readonly code = 'order_not_found';
  constructor() {
    super('Order not found');
  }
}

/** A refund names a provider charge id that paid no order. */
export class UnknownChargeError extends DomainError {
  readonly code = 'unknown_charge';
  constructor(readonly chargeId: string) {
    super(`No paid order has the charge id ${chargeId.slice(0, 80)}`);
  }
}

/** The order cannot be refunded in its state (not fulfilled). */
export class OrderNotRefundableError extends DomainError {
  readonly code = 'order_not_refundable';
  constructor(readonly status: string) {
    super(`An order in status ${status} cannot be refunded`, { status });
  }
}

/** A carrier notification that is not one (bad JSON shape). */
export class InvalidNotificationError extends DomainError {
  readonly code = 'invalid_notification';
  constructor(message: string) {
    super(message);
  }
}

/** A notification names a payment the provider does not know: forged or mistaken; nothing changes. */
export class UnknownPaymentError extends DomainError {
  readonly code = 'unknown_payment';
  constructor(readonly paymentId: string) {
    super(`The payment provider does not know the payment ${paymentId.slice(0, 80)}`);
  }
}

/** The web payment provider is not configured (production without credentials). */
export class CarrierNotConfiguredError extends DomainError {
  readonly code = 'payments_unavailable';
  constructor() {
    super('Online payment is not configured on this server');
  }
}

/**
 * The payment provider could not be reached or answered 429/5xx: worth retrying later (a refund job retries;
 * a notification answered 503 is re-sent by the provider).
 */
export class PaymentProviderUnavailableError extends DomainError {
  readonly code = 'payment_provider_unavailable';
  constructor(
    readonly provider: string,
    reason: string,
  ) {
    super(`The payment provider ${provider} is unavailable: ${reason}`, { provider });
  }
}

/** The payment provider refused the request for good (4xx other than 429). */
export class PaymentProviderRejectedError extends DomainError {
  readonly code = 'payment_provider_rejected';
  constructor(
    readonly provider: string,
    reason: string,
  ) {
    super(`The payment provider ${provider} refused: ${reason}`, { provider });
  }
}

/** Receipts are on (54-FZ) and the account has no email or phone to send one to. */
export class ReceiptContactMissingError extends DomainError {
  readonly code = 'receipt_contact_required';
  constructor() {
    super('A receipt must be sent for this payment: add an email address (or a phone number) to your account first');
  }
}

/** Stars invoice links need the Telegram bot, and none runs in this process (BOT_TOKEN unset). */
export class StarsUnavailableError extends DomainError {
  readonly code = 'stars_unavailable';
  constructor() {
    super('Telegram Stars payments need the Telegram bot, which is not configured on this server (BOT_TOKEN)');
  }
}

/** A Stars payment is made by the account's Telegram user: an account without one cannot pay in Stars. */
export class TelegramAccountRequiredError extends DomainError {
  readonly code = 'telegram_account_required';
  constructor() {
    super('Paying with Telegram Stars needs an account linked to Telegram: open the dashboard from the bot, or pay by card');
  }
}
