import type { BudgetPeriod } from '../../db/entities/api-key.entity';
import { DomainError } from '../errors';

export type { BudgetPeriod };
export const BUDGET_PERIODS = ['day', 'month', 'total'] as const satisfies readonly BudgetPeriod[];

/** What a request made with an API key may do beyond what the account may (carried on the Actor). */
export interface KeyScope {
  id: number;
  /** The catalog slugs the key may run; null: every model the plan allows. */
  models: readonly string[] | null;
  /** Whether the key has a token budget (its holds then wait for the budget check before any vendor call). */
  budgeted: boolean;
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
export function assertKeyAllowsModel(key: KeyScope | undefined, slug: string): void {
  if (key?.models && !key.models.includes(slug)) throw new ModelNotAllowedError(slug);
}
