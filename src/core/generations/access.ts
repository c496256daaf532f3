import { PlanTooLowError } from '../accounts/errors';
import { Plan } from '../accounts/plans';
import { canUseModel, requiredPlanFor } from '../catalog/catalog';
import { ModelDefinition } from '../catalog/types';
import { ProviderConnection } from '../providers/types';
import { ProviderConnections } from '../providers/connections';
import { ProviderGate } from '../providers/provider-gate';

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
 * What every model-running request passes before any money moves: the plan opens the model, its provider is
 * configured (or sandboxed), and its circuit is closed. @throws PlanTooLowError, ProviderUnavailableError
 */
export function assertRunnable(
  plan: Plan,
  model: ModelDefinition,
  connections: ProviderConnections,
  gate: ProviderGate,
): ProviderConnection {
  assertCanUseModel(plan, model);
  const conn = connections.connection(model.provider, model.slug);
  gate.assertAvailable(model.provider, model.slug);
  return conn;
}
