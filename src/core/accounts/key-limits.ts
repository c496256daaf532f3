import type { BudgetPeriod } from '../../db/entities/api-key.entity';
import { DomainError } from '../errors';

export type { BudgetPeriod };
export const BUDGET_PERIODS = ['day', 'month', 'total'] as const satisfies readonly BudgetPeriod[];

/** A key's own limits as they are stored (null: no such limit). */
export interface KeyLimitValues {
  tokenBudget: number | null;
  budgetPeriod: BudgetPeriod;
  models: readonly string[] | null;
  expiresAt: Date | null;
}

/** What a request made with an API key may do beyond what the account may (carried on the Actor). */
export interface KeyScope extends KeyLimitValues {
  id: number;
  /** Whether the key has a token budget (its holds then wait for the budget check before any vendor call). */
  budgeted: boolean;
  /** A key with any limit: it generates and reads, and manages nothing (see isRestrictedKey). */
  restricted: boolean;
}

/** The scope of a key with these limits. */
export function keyScopeOf(id: number, limits: KeyLimitValues): KeyScope {
  return { id, ...limits, budgeted: limits.tokenBudget !== null, restricted: isRestrictedKey(limits) };
}

/**
 * A key with any limit (a token budget, a model list or an expiry) is restricted: it may generate and read (models,
 * balance, its own usage and generations) and nothing else. Only a key without limits manages the account.
 */
export function isRestrictedKey(limits: Pick<KeyLimitValues, 'tokenBudget' | 'models' | 'expiresAt'>): boolean {
  return limits.tokenBudget !== null || limits.models !== null || limits.expiresAt !== null;
}

/** How much a budget of N tokens lets through over time: per day more than per month, per month more than in total. */
const PERIOD_REACH: Record<BudgetPeriod, number> = { total: 0, month: 1, day: 2 };

/**
 * Which of `holder`'s limits `candidate` would exceed: the key named `candidate` is wider than `holder` when it may
 * do something `holder` may not. Per limit, where `holder` has one:
 * - models: `candidate` has no list, or a slug outside `holder`'s list;
 * - budget: `candidate` has no budget, a larger one, or one that renews more often (day > month > total);
 * - expiry: `candidate` never expires, or expires later.
 * A limit `holder` lacks cannot be exceeded; a restricted candidate of an unrestricted holder is never wider.
 * @returns the wire names of the limits exceeded (empty: not wider)
 */
export function limitsWiderThan(candidate: KeyLimitValues, holder: KeyLimitValues): ('models' | 'token_budget' | 'expires_at')[] {
  const wider: ('models' | 'token_budget' | 'expires_at')[] = [];
  if (holder.models !== null && (candidate.models === null || candidate.models.some((m) => !holder.models?.includes(m)))) {
    wider.push('models');
  }
  if (
    holder.tokenBudget !== null &&
    (candidate.tokenBudget === null ||
      candidate.tokenBudget > holder.tokenBudget ||
      PERIOD_REACH[candidate.budgetPeriod] > PERIOD_REACH[holder.budgetPeriod])
  ) {
    wider.push('token_budget');
  }
  if (holder.expiresAt !== null && (candidate.expiresAt === null || candidate.expiresAt.getTime() > holder.expiresAt.getTime())) {
    wider.push('expires_at');
  }
  return wider;
}

/**
 * The API key this request came with has limits, so it may only generate and read: managing keys, webhooks,
 * schedules, payments, the profile or the settings needs a key without limits or a signed-in session. Also raised
 * when a key would create or edit a key wider than itself (`limits` names what would be exceeded).
 */
export class KeyRestrictedError extends DomainError {
  readonly code = 'key_restricted';
  constructor(readonly limits: readonly string[] = []) {
    super(
      limits.length > 0
        ? `An API key cannot create or edit a key wider than itself (${limits.join(', ')}).`
        : 'This API key has limits (a token budget, a model list or an expiry): it may generate and read, but not manage ' +
            'the account. Use a key without limits, or sign in.',
      limits.length > 0 ? { limits: [...limits] } : {},
    );
  }
}

/** The key's token budget for its current period is spent (or this request would pass it). */
export class KeyBudgetExceededError extends DomainError {
  readonly code = 'key_budget_exceeded';
  constructor(
    readonly required: number,
    readonly remaining: number,
  ) {
    super(`This API key's token budget allows ${remaining} more tokens in its period; this request needs ${required}.`, {
      required,
      remaining,
    });
  }
}

/** The key's model list does not include the model asked for. */
export class ModelNotAllowedError extends DomainError {
  readonly code = 'model_not_allowed';
  constructor(readonly model: string) {
    super(`This API key may not use the model ${model}.`, { model });
  }
}

/** @throws ModelNotAllowedError when the request's key has a model list without `slug` */
export function assertKeyAllowsModel(key: Pick<KeyScope, 'models'> | undefined, slug: string): void {
  if (key?.models && !key.models.includes(slug)) throw new ModelNotAllowedError(slug);
}
