import { InlineKeyboard } from 'grammy';
import type { PlanDirectory } from '../core/accounts/plans';
import { findModel } from '../core/catalog/catalog';
import type { ParamError } from '../core/catalog/errors';
import { ErrorTable, renderByCode } from '../core/error-registry';
import { DomainError } from '../core/errors';
import { RateLimitedError } from '../core/limits/rate-limiter';
import { PROVIDER_ERROR_CODES } from '../core/providers/types';
import { formatTime, planName } from './render/format';
import type { Locale, Translate } from './i18n';
import { BALANCE_PLANS, BALANCE_TOP_UP } from './callback-data';
import { isGroupChatId, privateChatKeyboard } from './group/chats';

/** A message for the user: text plus the buttons that help (top up, plans). */
export interface UserMessage {
  text: string;
  keyboard?: InlineKeyboard;
}

/** Thrown by the bot itself for a Telegram file it cannot use (too large, gone). */
export class TelegramFileError extends DomainError {
  readonly code: 'file_too_large' | 'file_unavailable';
  constructor(readonly reason: 'too_large' | 'unavailable') {
    super(`Telegram file ${reason}`, { reason });
    this.code = reason === 'too_large' ? 'file_too_large' : 'file_unavailable';
  }
}

export function topUpKeyboard(t: Translate): InlineKeyboard {
  return new InlineKeyboard().text(t('button-top-up'), BALANCE_TOP_UP.data).text(t('button-plans'), BALANCE_PLANS.data);
}

const plansKeyboard = (t: Translate) => new InlineKeyboard().text(t('button-plans'), BALANCE_PLANS.data);

interface RenderEnv {
  t: Translate;
  locale: Locale;
  plans: PlanDirectory;
}

/**
 * How the bot answers one code; `fault` marks a failure on our side that is logged rather than the user's situation,
 * `personal` a message that tells of the account (balance, plan, limits): in a group it points to the private chat.
 */
interface BotRendering {
  render: (env: RenderEnv) => UserMessage | Promise<UserMessage>;
  fault?: boolean;
  personal?: boolean;
}

/** Where a message is shown: in a group (with the bot's username for the private-chat link), or privately. */
export interface Audience {
  group?: { botUsername: string };
}

/** The audience of a chat: a group (by its id: groups' ids are negative) or a private chat. */
export function audienceOf(chatId: number | undefined, botUsername: string): Audience {
  return chatId !== undefined && isGroupChatId(chatId) ? { group: { botUsername } } : {};
}

const modelName = (slug: string | undefined) => (slug && findModel(slug)?.name) || slug || '';

async function rateLimited(err: RateLimitedError, { t, locale, plans }: RenderEnv): Promise<UserMessage> {
  const d = err.decision;
  const dayFull = d.limitDay > 0 && d.remainingDay === 0;
  const args = {
    window: dayFull ? 'day' : 'hour',
    plan: await planName(plans, d.plan),
    limit: dayFull ? d.limitDay : d.limitHour,
    minutes: Math.max(1, Math.ceil(d.retryAfter / 60)),
    time: formatTime(locale, new Date(Date.now() + d.retryAfter * 1000)),
  };
  return { text: t('error-rate-limit-exceeded', args), keyboard: plansKeyboard(t) };
}

/** A refused parameter in the user's words: prompt problems get their own wording; any other field is named. */
export function paramErrorText(err: ParamError, t: Translate): string {
  const prompt = err.field === 'prompt' || err.field === 'negative_prompt';
  const reason = !prompt ? 'other' : err.reason === 'too_long' ? 'prompt_too_long' : 'prompt_required';
  return t('error-validation-error', { field: err.field, reason });
}

const fault = (render: BotRendering['render']): BotRendering => ({ render, fault: true });
const internal = fault(({ t }) => ({ text: t('error-internal') }));

/** The one place where core error codes become what the user reads, in their language. */
const BOT_ERRORS: ErrorTable<BotRendering> & Record<TelegramFileError['code'], () => BotRendering> = {
  insufficient_tokens: (err) => ({
    render: ({ t }) => ({
      text: t('error-insufficient-tokens', { required: err.required, available: err.available }),
      keyboard: topUpKeyboard(t),
    }),
    personal: true,
  }),
  rate_limit_exceeded: (err) => ({ render: (env) => rateLimited(err, env), personal: true }),
  insufficient_plan: (err) => ({
    render: async ({ t, plans }) => ({
      text: t('error-insufficient-plan', { plan: await planName(plans, err.requiredPlan) }),
      keyboard: plansKeyboard(t),
    }),
    personal: true,
  }),
  model_unavailable: (err) => ({
    render: ({ t }) => ({ text: t('error-model-unavailable', { model: modelName(err.modelSlug), seconds: err.retryAfterSeconds ?? 60 }) }),
  }),
  generation_failed: (err) => ({
    render: ({ t }) => ({ text: t('error-generation-failed', { reason: err.kind, model: modelName(err.modelSlug) }) }),
  }),
  model_overloaded: (err) => ({ render: ({ t }) => ({ text: t('error-model-overloaded', { model: err.provider }) }) }),
  model_rate_limited: (err) => ({ render: ({ t }) => ({ text: t('error-model-rate-limited', { model: err.provider }) }) }),
  provider_quota_exhausted: (err) => ({ render: ({ t }) => ({ text: t('error-provider-quota-exhausted', { model: err.provider }) }) }),
  upstream_timeout: (err) => ({ render: ({ t }) => ({ text: t('error-upstream-timeout', { model: err.provider }) }) }),
  content_policy_violation: () => ({ render: ({ t }) => ({ text: t('error-content-policy-violation') }) }),
  upstream_bad_request: (err) => ({ render: ({ t }) => ({ text: t('error-upstream-bad-request', { model: err.provider }) }) }),
  upstream_auth: (err) => ({ render: ({ t }) => ({ text: t('error-upstream-auth', { model: err.provider }) }) }),
  upstream_error: (err) => ({ render: ({ t }) => ({ text: t('error-upstream-error', { model: err.provider }) }) }),
  validation_error: (err) => ({ render: ({ t }) => ({ text: paramErrorText(err, t) }) }),
  invalid_size: () => ({ render: ({ t }) => ({ text: t('error-invalid-size') }) }),
  model_not_found: (err) => ({ render: ({ t }) => ({ text: t('error-model-not-found', { model: err.slug }) }) }),
  model_retired: (err) => ({ render: ({ t }) => ({ text: t('error-model-retired', { model: modelName(err.slug) }) }) }),
  invalid_input: () => ({ render: ({ t }) => ({ text: t('error-invalid-input') }) }),
  unsafe_url: () => ({ render: ({ t }) => ({ text: t('error-unsafe-url') }) }),
  fetch_failed: () => ({ render: ({ t }) => ({ text: t('error-fetch-failed') }) }),
  image_rejected: () => ({ render: ({ t }) => ({ text: t('error-image-rejected') }) }),
  document_too_large: (err) => ({
    render: ({ t }) => ({ text: t('error-document-too-large', { limit: err.limit, max: documentLimitValue(err.limit, err.max) }) }),
  }),
  document_unreadable: (err) => ({ render: ({ t }) => ({ text: t('error-document-unreadable', { reason: err.reason }) }) }),
  file_too_large: () => ({ render: ({ t }) => ({ text: t('error-file-too-large') }) }),
  file_unavailable: () => ({ render: ({ t }) => ({ text: t('error-file-unavailable') }) }),
  account_blocked: () => ({ render: ({ t }) => ({ text: t('error-account-blocked') }), personal: true }),
  quota_exceeded: (err) => ({ render: ({ t }) => ({ text: t('error-quota-exceeded', { limit: err.limit }) }), personal: true }),
  not_found: () => ({ render: ({ t }) => ({ text: t('error-not-found') }) }),
  // The bot has no API keys; rendered all the same, like every code, should a core path ever raise it there.
  key_restricted: () => ({ render: ({ t }) => ({ text: t('error-key-restricted') }) }),
  admin_required: () => ({ render: ({ t }) => ({ text: t('error-admin-required') }) }),
  cannot_block_self: () => ({ render: ({ t }) => ({ text: t('error-cannot-block-self') }) }),
  broadcast_finished: () => ({ render: ({ t }) => ({ text: t('error-broadcast-finished') }) }),
  // Failures a bot user cannot cause: logged, and answered as an internal error.
  key_budget_exceeded: () => internal,
  model_not_allowed: () => internal,
  invalid_token: () => internal,
  invalid_reset_token: () => internal,
  invalid_verification_token: () => internal,
  account_locked: () => internal,
  login_replayed: () => internal,
  invalid_credentials: () => internal,
  sign_in_unavailable: () => internal,
  account_exists: () => internal,
  invalid_storage_key: () => internal,
  range_not_satisfiable: () => internal,
  unknown_article: () => internal,
  order_not_found: () => internal,
  unknown_charge: () => internal,
  order_not_refundable: () => internal,
  invalid_notification: () => internal,
  unknown_payment: () => internal,
  payments_unavailable: () => internal,
  receipt_contact_required: () => internal,
  stars_unavailable: () => internal,
  telegram_account_required: () => internal,
  payment_provider_unavailable: () => internal,
  payment_provider_rejected: () => internal,
  client_closed_request: () => internal,
  rate_counters_unavailable: () => internal,
  idempotency_conflict: () => internal,
  generation_pending: () => internal,
  idempotency_key_reused: () => internal,
  mail_failed: () => internal,
  invalid_url: () => internal,
  https_required: () => internal,
  forbidden_address: () => internal,
  unknown_event: () => internal,
  webhook_limit_reached: () => internal,
  response_not_found: () => internal,
  response_not_cancellable: () => internal,
  promo_not_found: () => ({ render: ({ t }) => ({ text: t('error-promo-not-found') }) }),
  promo_expired: () => ({ render: ({ t }) => ({ text: t('error-promo-expired') }) }),
  promo_exhausted: () => ({ render: ({ t }) => ({ text: t('error-promo-exhausted') }) }),
  promo_already_redeemed: () => ({ render: ({ t }) => ({ text: t('error-promo-already-redeemed') }) }),
  // Codes are made in the dashboard, never in the bot.
  promo_code_taken: () => internal,
};

/** A document cap as the user reads it: megabytes for the file size, else the count. */
function documentLimitValue(limit: string, max: number): number {
  return limit === 'bytes' ? Math.floor(max / (1024 * 1024)) : max;
}

/** The codes the bot renders, for the test that walks every core error. */
export function botRendersCode(code: string): boolean {
  return Object.hasOwn(BOT_ERRORS, code);
}

/**
 * What the user reads for any thrown value, in their language; unknown errors are a generic failure (the caller logs
 * them). In a group, what would tell of the account (balance, plan, limits) is a note pointing to the private chat.
 */
export async function describeErrorForUser(
  err: unknown,
  t: Translate,
  locale: Locale,
  plans: PlanDirectory,
  audience: Audience = {},
): Promise<UserMessage> {
  const rendering = renderByCode(BOT_ERRORS as ErrorTable<BotRendering>, err) ?? internal;
  if (rendering.personal && audience.group) {
    const bot = audience.group.botUsername;
    return { text: t('group-error-personal', { bot }), keyboard: privateChatKeyboard(t, bot, 'balance') };
  }
  return rendering.render({ t, locale, plans });
}

const VENDOR_FAILURE_CODES: ReadonlySet<string> = new Set([...Object.values(PROVIDER_ERROR_CODES), 'generation_failed']);

/** The kind of a vendor failure (a provider error, or a generation one ended), decided by the error's code. */
export function vendorFailureKind(err: unknown): string | undefined {
  if (!(err instanceof DomainError) || !VENDOR_FAILURE_CODES.has(err.code)) return undefined;
  return String(err.details.reason);
}

/** The text of a failed generation, by its failure kind (nothing is ever charged for one). */
export function failureText(kind: string | null, t: Translate, model: string): string {
  return t('error-generation-failed', { reason: kind ?? 'upstream', model });
}

/** Errors that are the user's situation (balance, limits, plan, input), not a fault to log. */
export function isExpectedError(err: unknown): boolean {
  const rendering = renderByCode(BOT_ERRORS as ErrorTable<BotRendering>, err);
  return rendering !== undefined && !rendering.fault;
}
