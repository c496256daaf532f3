import { listModels } from '../catalog/catalog';
import { API_KEY_MIN_LEVEL, BILLING_PERIOD_DAYS, PlanDirectory, STARTER_GRANT_TOKENS } from './plans';

/** One plan as the billing page compares them (GET /api/v2/plans). */
export interface PlanView {
  slug: string;
  name: string;
  level: number;
  monthly_tokens: number;
  one_time_tokens: number;
  rate_limit_hourly: number;
  rate_limit_daily: number;
  retention_days: number | null;
  models: number;
  api_keys: boolean;
  period_days: number;
}

/** Every plan, cheapest first, with what it gives: tokens, limits, models in service, API keys, retention. */
export async function comparePlans(plans: PlanDirectory): Promise<PlanView[]> {
  return [...(await plans.all()).values()].map((p) => ({
    slug: p.slug,
    name: p.name,
    level: p.level,
    monthly_tokens: p.monthlyTokens,
    one_time_tokens: p.slug === 'free' ? STARTER_GRANT_TOKENS : 0,
    rate_limit_hourly: p.rateLimitHourly,
    rate_limit_daily: p.rateLimitDaily,
    retention_days: p.retentionDays,
    models: listModels({ minPlan: p.slug }).length,
    api_keys: p.level >= API_KEY_MIN_LEVEL,
    period_days: BILLING_PERIOD_DAYS,
  }));
}
