import fs from 'node:fs';
import path from 'node:path';
import { describeError } from '../../src/api/middleware/errors';
import { botRendersCode, describeErrorForUser, TelegramFileError } from '../../src/bot/errors';
import { I18n } from '../../src/bot/i18n';
import {
  AccountBlockedError,
  AccountConflictError,
  AccountLockedError,
  InvalidCredentialsError,
  LoginReplayedError,
  InvalidTokenError,
  NotFoundError,
  PlanTooLowError,
  QuotaExceededError,
  SignInUnavailableError,
} from '../../src/core/accounts/errors';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { AdminRequiredError, CannotBlockSelfError } from '../../src/core/admin/errors';
import { BroadcastFinishedError } from '../../src/core/broadcasts/errors';
import { KeyBudgetExceededError, KeyRestrictedError, ModelNotAllowedError } from '../../src/core/accounts/key-limits';
import { SmtpError } from '../../src/core/accounts/smtp-mailer';
import { InsufficientTokensError } from '../../src/core/billing/errors';
import { ParamError, UnknownModelError, ModelRetiredError } from '../../src/core/catalog/errors';
import { CORE_ERROR_CLASSES, CoreErrorCode } from '../../src/core/error-registry';
import { DomainError } from '../../src/core/errors';
import {
  ClientGoneError,
  GenerationFailedError,
  GenerationPendingError,
  IdempotencyConflictError,
  InputError,
} from '../../src/core/generations/errors';
import { ProviderUnavailableError } from '../../src/core/providers/errors';
import { CountersUnavailableError } from '../../src/core/limits/errors';
import { RateLimitedError } from '../../src/core/limits/rate-limiter';
import { ImageValidationError, InvalidSizeError } from '../../src/core/media/image';
import { InvalidStorageKeyError, RangeNotSatisfiableError } from '../../src/core/media/storage';
import { FetchFailedError, UnsafeUrlError } from '../../src/core/net/errors';
import {
  CarrierNotConfiguredError,
  ReceiptContactMissingError,
  StarsUnavailableError,
  TelegramAccountRequiredError,
  InvalidNotificationError,
  OrderNotFoundError,
  OrderNotRefundableError,
  PaymentProviderRejectedError,
  PaymentProviderUnavailableError,
  UnknownArticleError,
  UnknownChargeError,
  UnknownPaymentError,
} from '../../src/core/payments/errors';
import { ProviderError } from '../../src/core/providers/types';
import { WebhookInputError } from '../../src/core/webhooks/errors';
import { DocumentTooLargeError, DocumentUnreadableError } from '../../src/core/documents/errors';
import { ResponseNotCancellableError, ResponseNotFoundError } from '../../src/core/responses/errors';
import {
  PromoAlreadyRedeemedError,
  PromoCodeTakenError,
  PromoExhaustedError,
  PromoExpiredError,
  PromoNotFoundError,
} from '../../src/core/promos/errors';

const decision = {
  allowed: false,
  plan: 'free',
  limitHour: 10,
  remainingHour: 0,
  limitDay: 50,
  remainingDay: 40,
  resetHour: 0,
  resetDay: 0,
  retryAfter: 60,
};

// One instance per code; typed over every code, so a new code without a sample fails the type check.
const SAMPLES: Record<CoreErrorCode, DomainError> = {
  account_blocked: new AccountBlockedError(),
  admin_required: new AdminRequiredError(),
  cannot_block_self: new CannotBlockSelfError(),
  broadcast_finished: new BroadcastFinishedError('done'),
  account_exists: new AccountConflictError('email', 'taken'),
  invalid_credentials: new InvalidCredentialsError(),
  invalid_token: new InvalidTokenError(),
  invalid_reset_token: new InvalidTokenError('bad', 'reset'),
  invalid_verification_token: new InvalidTokenError('bad', 'verification'),
  account_locked: new AccountLockedError(900),
  login_replayed: new LoginReplayedError(),
  not_found: new NotFoundError('Key'),
  insufficient_plan: new PlanTooLowError('pro', 'needs pro'),
  quota_exceeded: new QuotaExceededError('keys', 5),
  sign_in_unavailable: new SignInUnavailableError('off'),
  mail_failed: new SmtpError('refused'),
  insufficient_tokens: new InsufficientTokensError(10, 2),
  key_budget_exceeded: new KeyBudgetExceededError(10, 2),
  key_restricted: new KeyRestrictedError(),
  model_not_allowed: new ModelNotAllowedError('gpt-6.1-sol'),
  validation_error: new ParamError('size', 'bad size'),
  model_not_found: new UnknownModelError('nope'),
  model_retired: new ModelRetiredError('old-model', '2026-10-23'),
  generation_failed: new GenerationFailedError(1, 'timeout', 'late', 'flux-dev'),
  generation_pending: new GenerationPendingError(1),
  client_closed_request: new ClientGoneError(),
  idempotency_conflict: new IdempotencyConflictError('in_progress', 'running'),
  idempotency_key_reused: new IdempotencyConflictError('body_mismatch', 'other body'),
  invalid_input: new InputError('image_url', 'not an image'),
  model_unavailable: new ProviderUnavailableError('bfl', 'flux-dev', 'circuit open', 30),
  rate_limit_exceeded: new RateLimitedError(decision),
  rate_counters_unavailable: new CountersUnavailableError(),
  image_rejected: new ImageValidationError('not_an_image', 'not an image'),
  invalid_size: new InvalidSizeError('not a size'),
  invalid_storage_key: new InvalidStorageKeyError('bad key'),
  range_not_satisfiable: new RangeNotSatisfiableError(10),
  fetch_failed: new FetchFailedError('timeout', 'slow'),
  unsafe_url: new UnsafeUrlError('forbidden_address', 'private'),
  unknown_article: new UnknownArticleError('x'),
  order_not_found: new OrderNotFoundError(),
  unknown_charge: new UnknownChargeError('ch'),
  order_not_refundable: new OrderNotRefundableError('pending'),
  invalid_notification: new InvalidNotificationError('bad'),
  unknown_payment: new UnknownPaymentError('p'),
  payments_unavailable: new CarrierNotConfiguredError(),
  receipt_contact_required: new ReceiptContactMissingError(),
  stars_unavailable: new StarsUnavailableError(),
  telegram_account_required: new TelegramAccountRequiredError(),
  payment_provider_unavailable: new PaymentProviderUnavailableError('yookassa', 'down'),
  payment_provider_rejected: new PaymentProviderRejectedError('yookassa', 'no'),
  model_overloaded: new ProviderError('overloaded', '529', 'bfl'),
  model_rate_limited: new ProviderError('rate_limited', '429', 'bfl'),
  provider_quota_exhausted: new ProviderError('quota', '402', 'bfl'),
  upstream_timeout: new ProviderError('timeout', 'slow', 'bfl'),
  content_policy_violation: new ProviderError('content_policy', 'refused', 'bfl'),
  upstream_bad_request: new ProviderError('bad_request', '400', 'bfl'),
  upstream_auth: new ProviderError('auth', '401', 'bfl'),
  upstream_error: new ProviderError('upstream', '500', 'bfl'),
  invalid_url: new WebhookInputError('invalid_url', 'url', 'not a URL'),
  https_required: new WebhookInputError('https_required', 'url', 'https only'),
  forbidden_address: new WebhookInputError('forbidden_address', 'url', 'private'),
  unknown_event: new WebhookInputError('unknown_event', 'events', 'no such event'),
  webhook_limit_reached: new WebhookInputError('webhook_limit_reached', null, 'too many'),
  document_too_large: new DocumentTooLargeError('pages', 100, 240),
  document_unreadable: new DocumentUnreadableError('encrypted'),
  response_not_found: new ResponseNotFoundError('resp_1'),
  response_not_cancellable: new ResponseNotCancellableError('resp_1', 'not a background response'),
  promo_not_found: new PromoNotFoundError(),
  promo_expired: new PromoExpiredError(new Date('2026-01-01T00:00:00Z')),
  promo_exhausted: new PromoExhaustedError(),
  promo_already_redeemed: new PromoAlreadyRedeemedError(),
  promo_code_taken: new PromoCodeTakenError('SPRING'),
};

const CORE = path.resolve(__dirname, '../../src/core');
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

test('every exported error class of the core is a DomainError in the registry', () => {
  const declared = sourceFiles(CORE).flatMap((file) =>
    [...fs.readFileSync(file, 'utf8').matchAll(/^export (?:abstract )?class (\w+) extends (\w+)/gm)]
      .filter((m) => m[2] === 'Error' || m[2] === 'DomainError' || /Error$/.test(m[1]))
      .map((m) => ({ name: m[1], base: m[2], file: path.relative(CORE, file) })),
  );
  expect(declared.length).toBeGreaterThan(20);
  expect(declared.filter((d) => d.base === 'Error' && d.name !== 'DomainError')).toEqual([]);
  const registered = new Set(CORE_ERROR_CLASSES.map((c) => c.name));
  expect(declared.filter((d) => d.name !== 'DomainError' && !registered.has(d.name)).map((d) => d.name)).toEqual([]);
});

test('every registered class has a sample per code, and each sample carries its own code', () => {
  const sampled = new Set(Object.values(SAMPLES).map((e) => e.constructor));
  expect(CORE_ERROR_CLASSES.filter((c) => !sampled.has(c)).map((c) => c.name)).toEqual([]);
  for (const [code, err] of Object.entries(SAMPLES)) {
    expect({ code, actual: err.code }).toEqual({ code, actual: code });
    expect(err.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  }
});

test.each(Object.entries(SAMPLES))(
  'the API renders %s from its table: a 4xx/5xx with the documented body, never by message',
  (code, err) => {
    const d = describeError(err);
    if (code === 'mail_failed') {
      expect(d).toMatchObject({ status: 500, code: 'internal_error' });
      return;
    }
    expect(d.status).toBeGreaterThanOrEqual(400);
    expect(d.status).toBeLessThan(600);
    expect(d.status).not.toBe(500);
    expect(d.code).toMatch(/^[a-z_]+$/);
  },
);

test('the wire codes the external suite knows stay the same', () => {
  expect(describeError(SAMPLES.model_not_found)).toMatchObject({ status: 404, code: 'model_not_found', details: { model: 'nope' } });
  expect(describeError(SAMPLES.model_retired)).toMatchObject({
    status: 410,
    code: 'model_retired',
    details: { shutdown_at: '2026-10-23' },
  });
  expect(describeError(SAMPLES.validation_error)).toMatchObject({ status: 400, code: 'validation_error', details: { field: 'size' } });
  expect(describeError(new InputError('image', 'big', 'too_large'))).toMatchObject({ status: 413, code: 'invalid_input' });
  expect(describeError(new InputError('image', 'unsafe', 'invalid'))).toMatchObject({ status: 400, code: 'invalid_input' });
  expect(describeError(SAMPLES.invalid_input)).toMatchObject({ status: 422, code: 'invalid_input' });
});

describe('the bot renders every code from its table with an error-<code> message in both languages', () => {
  const i18n = I18n.load();
  const plans = {
    get: async () => ({ name: 'Pro' }),
    all: async () => new Map([['pro', { slug: 'pro', name: 'Pro' }]]),
  } as unknown as PlanDirectory;
  const internal = i18n.t('en', 'error-internal');
  const codes = [...Object.keys(SAMPLES), 'file_too_large', 'file_unavailable'];
  const botOnly: Record<string, DomainError> = {
    file_too_large: new TelegramFileError('too_large'),
    file_unavailable: new TelegramFileError('unavailable'),
  };

  test.each(codes)('%s', async (code) => {
    expect(botRendersCode(code)).toBe(true);
    const err = SAMPLES[code as CoreErrorCode] ?? botOnly[code];
    const text = (await describeErrorForUser(err, i18n.translator('en'), 'en', plans)).text;
    const key = `error-${code.replaceAll('_', '-')}`;
    const served = text !== internal;
    // Codes a bot user cannot cause answer as an internal error; every other one has its own message.
    if (served) {
      expect(i18n.has('en', key)).toBe(true);
      expect(i18n.has('ru', key)).toBe(true);
      expect((await describeErrorForUser(err, i18n.translator('ru'), 'ru', plans)).text).not.toBe(text);
    }
  });

  test('most codes have their own message', async () => {
    const own = codes.filter((c) => i18n.has('en', `error-${c.replaceAll('_', '-')}`));
    expect(own.length).toBeGreaterThan(20);
  });
});
