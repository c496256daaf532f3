import { PlanTooLowError } from '../accounts/errors';
import { Plan } from '../accounts/plans';
import { canUseModel, requiredPlanFor } from '../catalog/catalog';
import { ModelDefinition } from '../catalog/types';
import { ModelRetiredError } from '../catalog/errors';
import { ProviderUnavailableError } from '../providers/errors';
import { ProviderRouter } from '../providers/router';

const PLAN_NAMES: Record<string, string> = { free: 'Starter', basic: 'Basic', pro: 'Pro', vip: 'VIP', elite: 'Elite' };

export function planDisplayName(slug: string): string {
  return PLAN_NAMES[slug] ?? slug;
}

/** @throws PlanTooLowError naming the lowest plan that opens the model. */
export function assertCanUseModel(plan: Plan, model: ModelDefinition): void {
  if (canUseModel(plan.slug, model)) return;
  const required = requiredPlanFor(model);
  throw new PlanTooLowError(
    required,
    `Insufficient plan: ${model.slug} needs the ${planDisplayName(required)} plan or higher (yours: ${planDisplayName(plan.slug)}).`,
  );
}

/**
 * What every model-running request passes before any money moves: the plan opens the model, and its provider is
 * configured (or sandboxed) with a connection taking calls. @throws PlanTooLowError, ProviderUnavailableError
 */
export function assertRunnable(plan: Plan, model: ModelDefinition, router: ProviderRouter): void {
  assertCanUseModel(plan, model);
  router.assertAvailable(model.provider, model.slug);
}

/** A model that cannot serve now (retired without a replacement, or its vendor unreachable): a fallback may. */
export function cannotServeNow(err: unknown): boolean {
  return err instanceof ProviderUnavailableError || err instanceof ModelRetiredError;
}
