import type { MessageKey } from '../i18n/en';
import type { Translate } from '../i18n/translate';
import { ApiFailure, minutesToWait, type ApiErrorBody } from './api-error';
import { planName } from './format';

type Wording = (body: ApiErrorBody) => [MessageKey, Record<string, string | number>?];

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Words for every error code a dashboard user can meet (the codes of src/api/middleware/errors.ts and the
 * transport's own). A code not listed here falls back to the server's message.
 */
const WORDING: Record<string, Wording> = {
  invalid_credentials: () => ['error.invalidCredentials'],
  account_locked: (b) => ['error.locked', { minutes: minutesToWait(b.retry_after) }],
  rate_limit_exceeded: (b) => ['error.rateLimited', { minutes: minutesToWait(b.retry_after) }],
  account_exists: () => ['register.exists'],
  login_replayed: () => ['error.loginReplayed'],
  sign_in_unavailable: () => ['error.signInUnavailable'],
  not_authenticated: () => ['error.sessionEnded'],
  invalid_token: () => ['error.invalidToken'],
  session_required: () => ['error.sessionRequired'],
  account_blocked: () => ['error.accountBlocked'],
  admin_required: () => ['error.adminRequired'],
  cannot_block_self: () => ['error.cannotBlockSelf'],
  broadcast_finished: () => ['error.broadcastFinished'],
  invalid_reset_token: () => ['reset.invalid'],
  invalid_verification_token: () => ['verify.failed'],
  insufficient_tokens: (b) => ['error.insufficientTokens', { required: num(b.required), available: num(b.available) }],
  insufficient_plan: (b) => ['error.insufficientPlan', { plan: planName(text(b.required_plan)) }],
  key_budget_exceeded: () => ['error.keyBudget'],
  model_not_allowed: () => ['error.modelNotAllowed'],
  key_restricted: () => ['error.keyRestricted'],
  quota_exceeded: (b) => ['error.quotaExceeded', { limit: num(b.limit) }],
  not_found: () => ['error.notFound'],
  model_not_found: (b) => ['error.modelNotFound', { model: text(b.model) }],
  model_retired: () => ['error.modelRetired'],
  model_unavailable: () => ['error.modelUnavailable'],
  model_overloaded: () => ['error.modelBusy'],
  model_rate_limited: () => ['error.modelBusy'],
  provider_quota_exhausted: () => ['error.modelBusy'],
  upstream_timeout: () => ['error.upstreamTimeout'],
  content_policy_violation: () => ['error.contentPolicy'],
  upstream_bad_request: (b) => ['error.upstreamRefused', { message: b.message }],
  upstream_auth: () => ['error.modelUnavailable'],
  upstream_error: () => ['error.upstreamFailed'],
  generation_failed: () => ['error.upstreamFailed'],
  validation_error: (b) =>
    b.field ? ['error.validationField', { field: String(b.field), message: b.message }] : ['error.validation', { message: b.message }],
  invalid_input: (b) => ['error.invalidInput', { message: b.message }],
  payload_too_large: () => ['error.tooLarge'],
  document_too_large: (b) => ['error.documentTooLarge', { message: b.message }],
  document_unreadable: (b) => ['error.documentUnreadable', { message: b.message }],
  idempotency_conflict: () => ['error.inProgress'],
  generation_pending: () => ['error.generationPending'],
  unknown_article: () => ['error.unknownArticle'],
  order_not_found: () => ['error.notFound'],
  payments_unavailable: () => ['billing.unavailable'],
  stars_unavailable: () => ['error.starsUnavailable'],
  telegram_account_required: () => ['error.telegramAccountRequired'],
  payment_provider_unavailable: () => ['error.paymentProviderDown'],
  payment_provider_rejected: () => ['error.paymentRejected'],
  receipt_contact_required: () => ['error.receiptContact'],
  invalid_url: () => ['error.webhookUrl'],
  https_required: () => ['error.webhookHttps'],
  forbidden_address: () => ['error.webhookAddress'],
  unknown_event: () => ['error.webhookEvent'],
  webhook_limit_reached: (b) => ['error.webhookLimit', { limit: num(b.limit) }],
  promo_not_found: () => ['error.promoNotFound'],
  promo_expired: () => ['error.promoExpired'],
  promo_exhausted: () => ['error.promoExhausted'],
  promo_already_redeemed: () => ['error.promoAlreadyRedeemed'],
  promo_code_taken: () => ['error.promoCodeTaken'],
  service_unavailable: () => ['error.unavailable'],
  rate_counters_unavailable: () => ['error.unavailable'],
  internal_error: () => ['error.internal'],
  server_error: () => ['error.internal'],
};

/** The error codes that have their own wording (for the test that walks the server's codes). */
export const WORDED_CODES: readonly string[] = Object.keys(WORDING);

/** Words for a failed call: known codes get their own sentences, anything else the server's text. */
export function describeError(err: unknown, t: Translate): string {
  if (err instanceof ApiFailure) {
    const wording = WORDING[err.code];
    if (!wording) return err.body.message;
    const [key, vars] = wording(err.body);
    return t(key, vars);
  }
  if (err instanceof TypeError) return t('error.network');
  return t('error.generic', { message: err instanceof Error ? err.message : String(err) });
}
