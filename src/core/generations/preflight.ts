import { getBalance } from '../billing/ledger';
import { InsufficientTokensError } from '../billing/errors';
import { Queryable } from '../billing/queryable';
import { canUseModel } from '../catalog/catalog';
import { priceRange } from '../catalog/pricing';
import { ModelDefinition } from '../catalog/types';
import { RateLimitedError, RateLimiter } from '../limits/rate-limiter';
import { assertRunnable } from './access';
import { ProviderRouter } from '../providers/router';
import type { Actor } from './service';

export interface PreflightDeps {
  sql: Queryable;
  limiter: RateLimiter;
  router: ProviderRouter;
}

/**
 * The refusals a run would meet at once, checked before a user spends effort on it (a wizard's first step, its
 * confirmation, the bot's "working on it" message): nothing is counted and nothing is held. The run itself checks
 * everything again, atomically.
 */
export class RunPreflight {
  constructor(private readonly deps: PreflightDeps) {}

  /**
   * A request fits the rate limits, and the balance covers `cost` (with a model: the plan opens it and its provider
   * runs; the cost defaults to its lowest price). @throws RateLimitedError, InsufficientTokensError,
   * PlanTooLowError, ProviderUnavailableError
   */
  async check(actor: Actor, model?: ModelDefinition, cost?: number): Promise<void> {
    if (model) assertRunnable(actor.plan, model, this.deps.router);
    const [rate, balance] = await Promise.all([
      this.deps.limiter.peek(actor.user.id, actor.plan),
      getBalance(this.deps.sql, actor.user.id),
    ]);
    if (!rate.allowed) throw new RateLimitedError(rate);
    const required = cost ?? (model ? priceRange(model).min : 1);
    if (balance.total < required) throw new InsufficientTokensError(required, balance.total);
  }

  /** The check at the start of a wizard: the cheapest of `models` the plan opens must be affordable. */
  async checkAnyOf(actor: Actor, models: readonly ModelDefinition[]): Promise<void> {
    const prices = models.filter((m) => canUseModel(actor.plan.slug, m)).map((m) => priceRange(m).min);
    await this.check(actor, undefined, prices.length > 0 ? Math.min(...prices) : 1);
  }
}
