import { PlanTooLowError } from '../accounts/errors';
import { Plan } from '../accounts/plans';
import { canUseModel, requiredPlanFor } from '../catalog/catalog';
import { ModelDefinition } from '../catalog/types';
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
