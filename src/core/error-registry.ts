import {
  AccountBlockedError,
  AccountConflictError,
  AccountLockedError,
  LoginReplayedError,
  InvalidCredentialsError,
  InvalidTokenError,
  NotFoundError,
  PlanTooLowError,
  QuotaExceededError,
  SignInUnavailableError,
  SmtpError,
} from './accounts/errors';
import { AdminRequiredError, CannotBlockSelfError } from './admin/errors';
import { BroadcastFinishedError } from './broadcasts/errors';
import { KeyBudgetExceededError, KeyRestrictedError, ModelNotAllowedError } from './accounts/key-limits';
import { InsufficientTokensError } from './billing/errors';
import { ModelRetiredError, ParamError, UnknownModelError } from './catalog/errors';
import { DocumentTooLargeError, DocumentUnreadableError } from './documents/errors';
import { DomainError } from './errors';
import { ClientGoneError, GenerationFailedError, GenerationPendingError, IdempotencyConflictError, InputError } from './generations/errors';
import { ProviderUnavailableError } from './providers/errors';
import { CountersUnavailableError } from './limits/errors';
import { RateLimitedError } from './limits/rate-limiter';
import { ImageValidationError, InvalidSizeError } from './media/image';
import { InvalidStorageKeyError, RangeNotSatisfiableError } from './media/storage';
import { FetchFailedError, UnsafeUrlError } from './net/errors';
import {
  CarrierNotConfiguredError,
  InvalidNotificationError,
  OrderNotFoundError,
  OrderNotRefundableError,
  PaymentProviderRejectedError,
  PaymentProviderUnavailableError,
  ReceiptContactMissingError,
  StarsUnavailableError,
  TelegramAccountRequiredError,
  UnknownArticleError,
  UnknownChargeError,
  UnknownPaymentError,
} from './payments/errors';
import { ProviderError } from './providers/types';
import {
  PromoAlreadyRedeemedError,
  PromoCodeTakenError,
  PromoExhaustedError,
  PromoExpiredError,
  PromoNotFoundError,
} from './promos/errors';
import { ResponseNotCancellableError, ResponseNotFoundError } from './responses/errors';
import { WebhookInputError } from './webhooks/errors';

/**
 * Every error class the core raises. The doors' tables are typed over the codes derived from this list, so a new
 * class here fails the type check until both doors render its code (test/architecture/errors.test.ts checks that
 * no class is missing from it).
 */
export const CORE_ERROR_CLASSES = [
  AccountBlockedError,
  AccountConflictError,
  AccountLockedError,
  LoginReplayedError,
  InvalidCredentialsError,
  InvalidTokenError,
  NotFoundError,
  PlanTooLowError,
  QuotaExceededError,
  SignInUnavailableError,
  SmtpError,
  AdminRequiredError,
  CannotBlockSelfError,
  BroadcastFinishedError,
  KeyBudgetExceededError,
  KeyRestrictedError,
  ModelNotAllowedError,
  InsufficientTokensError,
  ParamError,
  UnknownModelError,
  ModelRetiredError,
  GenerationFailedError,
  GenerationPendingError,
  ClientGoneError,
  IdempotencyConflictError,
  InputError,
  ProviderUnavailableError,
  RateLimitedError,
  CountersUnavailableError,
  ImageValidationError,
  InvalidSizeError,
  InvalidStorageKeyError,
  RangeNotSatisfiableError,
  FetchFailedError,
  UnsafeUrlError,
  UnknownArticleError,
  OrderNotFoundError,
  UnknownChargeError,
  OrderNotRefundableError,
  InvalidNotificationError,
  UnknownPaymentError,
  CarrierNotConfiguredError,
  ReceiptContactMissingError,
  StarsUnavailableError,
  TelegramAccountRequiredError,
  PaymentProviderUnavailableError,
  PaymentProviderRejectedError,
  ProviderError,
  WebhookInputError,
  DocumentTooLargeError,
  DocumentUnreadableError,
  ResponseNotFoundError,
  ResponseNotCancellableError,
  PromoNotFoundError,
  PromoExpiredError,
  PromoExhaustedError,
  PromoAlreadyRedeemedError,
  PromoCodeTakenError,
] as const;

export type CoreError = InstanceType<(typeof CORE_ERROR_CLASSES)[number]>;
export type CoreErrorCode = CoreError['code'];
/** The error class (or classes) that can carry `code`. */
export type CoreErrorOf<C extends CoreErrorCode> = CoreError extends infer E
  ? E extends { code: infer K }
    ? C extends K
      ? E
      : never
    : never
  : never;

/** A door's table: one rendering per core error code, each seeing the error it renders with its own fields. */
export type ErrorTable<R> = { readonly [C in CoreErrorCode]: (err: CoreErrorOf<C>) => R };

/** Looks the error's code up in a door table; undefined for anything that is not a core error the table knows. */
export function renderByCode<R>(table: ErrorTable<R>, err: unknown): R | undefined {
  if (!(err instanceof DomainError) || !Object.hasOwn(table, err.code)) return undefined;
  return (table[err.code as CoreErrorCode] as (e: DomainError) => R)(err);
}

/** Whether `err` is the core failure with this code: doors decide by code, never by class. */
export function hasErrorCode<C extends CoreErrorCode>(err: unknown, code: C): err is CoreErrorOf<C> {
  return err instanceof DomainError && err.code === code;
}
