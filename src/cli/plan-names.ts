import { isPlanSlug } from '../core/accounts/plans';
import type { PlanSlug } from '../core/catalog/types';

/**
 * Plans as the CLI takes them: the names the dashboard and the bot show (`starter` for the free plan), and the
 * API's slugs, which stay valid (`free` is the same plan as `starter`). Case does not matter.
 */
export const CLI_PLAN_NAMES = ['starter', 'basic', 'pro', 'vip', 'elite'] as const;

const ALIASES: Readonly<Record<string, PlanSlug>> = { starter: 'free' };

/** The plan's slug (`starter` -> `free`), or null when the value names no plan. */
export function planSlugOf(value: string): PlanSlug | null {
  const name = value.trim().toLowerCase();
  if (name in ALIASES) return ALIASES[name];
  return isPlanSlug(name) ? name : null;
}

export const PLAN_CHOICES = `${CLI_PLAN_NAMES.join('|')}`;
export const PLAN_NOTE = `PLAN is ${CLI_PLAN_NAMES.join(', ')} (free, the API's name of the starter plan, is accepted too)`;
