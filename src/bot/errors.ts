import { InlineKeyboard } from 'grammy';
import { PlanTooLowError } from '../core/accounts/errors';
import type { PlanDirectory } from '../core/accounts/plans';
import { InsufficientTokensError } from '../core/billing/errors';
import { findModel } from '../core/catalog/catalog';
import { ParamError, UnknownModelError } from '../core/catalog/errors';
import { GenerationFailedError, InputError, ProviderUnavailableError } from '../core/generations/errors';
import { RateLimitedError } from '../core/limits/rate-limiter';
import { ProviderError } from '../core/providers/types';
import { formatTime, planName } from './format';
import type { Locale, Translate } from './i18n';

/** A message for the user: text plus the buttons that help (top up, plans). */
export interface UserMessage {
  text: string;
  keyboard?: InlineKeyboard;
}

/** Thrown by the bot itself for a Telegram file it cannot use (too large, gone). */
export class TelegramFileError extends Error {
  constructor(readonly reason: 'too_large' | 'unavailable') {
    super(`Telegram file ${reason}`);
    this.name = 'TelegramFileError';
  }
}

export function topUpKeyboard(t: Translate): InlineKeyboard {
  return new InlineKeyboard().text(t('button-top-up'), 'bal:topup').text(t('button-plans'), 'bal:plans');
}

/**
 * The one place where domain errors become what the user reads, in their language. Unknown errors are
 * reported as a generic failure (the caller logs them).
 */
export async function describeErrorForUser(err: unknown, t: Translate, locale: Locale, plans: PlanDirectory): Promise<UserMessage> {
  if (err instanceof InsufficientTokensError) {
    return { text: t('error-insufficient-tokens', { required: err.required, available: err.available }), keyboard: topUpKeyboard(t) };
  }
  if (err instanceof RateLimitedError) {
    const d = err.decision;
    const minutes = Math.max(1, Math.ceil(d.retryAfter / 60));
    const resetAt = formatTime(locale, new Date(Date.now() + d.retryAfter * 1000));
    const dayFull = d.limitDay > 0 && d.remainingDay === 0;
    const args = { plan: await planName(plans, d.plan), limit: dayFull ? d.limitDay : d.limitHour, minutes, time: resetAt };
    return {
      text: dayFull ? t('error-rate-limited-day', args) : t('error-rate-limited-hour', args),
      keyboard: new InlineKeyboard().text(t('button-plans'), 'bal:plans'),
    };
  }
  if (err instanceof PlanTooLowError) {
    return {
      text: t('error-plan-too-low', { plan: await planName(plans, err.requiredPlan) }),
      keyboard: new InlineKeyboard().text(t('button-plans'), 'bal:plans'),
    };
  }
  if (err instanceof ProviderUnavailableError) {
    return { text: t('error-provider-unavailable', { model: findModel(err.modelSlug)?.name ?? err.modelSlug, seconds: err.retryAfterSeconds ?? 60 }) };
  }
  if (err instanceof ProviderError) return { text: failureText(err.kind, t, err.provider) };
  if (err instanceof GenerationFailedError) {
    return { text: failureText(err.kind, t, (err.modelSlug && findModel(err.modelSlug)?.name) || err.modelSlug || '') };
  }
  if (err instanceof ParamError) {
    if (err.field === 'prompt' || err.field === 'negative_prompt') {
      return { text: /longer/.test(err.message) ? t('error-prompt-too-long') : t('error-prompt-required') };
    }
    return { text: t('error-invalid-parameter', { field: err.field }) };
  }
  if (err instanceof UnknownModelError) return { text: t('error-unknown-model', { model: err.slug }) };
  if (err instanceof TelegramFileError) return { text: err.reason === 'too_large' ? t('error-file-too-large') : t('error-file-unavailable') };
  if (err instanceof InputError) return { text: t('error-bad-input') };
  return { text: t('error-internal') };
}

/** The text of a failed generation, by its failure kind (nothing is ever charged for one). */
export function failureText(kind: string | null, t: Translate, model: string): string {
  switch (kind) {
    case 'overloaded':
    case 'rate_limited':
      return t('failure-overloaded', { model });
    case 'timeout':
      return t('failure-timeout', { model });
    case 'content_policy':
      return t('failure-content-policy');
    case 'bad_request':
      return t('failure-bad-request', { model });
    default:
      return t('failure-upstream', { model });
  }
}

/** Errors that are the user's situation (balance, limits, plan, input), not a fault to log. */
export function isExpectedError(err: unknown): boolean {
  return (
    err instanceof InsufficientTokensError ||
    err instanceof RateLimitedError ||
    err instanceof PlanTooLowError ||
    err instanceof ProviderUnavailableError ||
    err instanceof ProviderError ||
    err instanceof GenerationFailedError ||
    err instanceof ParamError ||
    err instanceof UnknownModelError ||
    err instanceof InputError ||
    err instanceof TelegramFileError
  );
}
