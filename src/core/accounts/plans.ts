import { DataSource } from 'typeorm';
import { PlanEntity } from '../../db/entities';
import { PLAN_LEVEL, PLAN_SLUGS, PlanSlug } from '../catalog/types';

export interface Plan {
  slug: PlanSlug;
  name: string;
  level: number;
  monthlyTokens: number;
  rateLimitHourly: number;
  rateLimitDaily: number;
  retentionDays: number | null;
  priceRub: number;
}

export const STARTER_GRANT_TOKENS = 50;
export const BILLING_PERIOD_DAYS = 30;
/** API keys work from this plan level on (vip, elite). */
export const API_KEY_MIN_LEVEL = PLAN_LEVEL.vip;

export function isPlanSlug(value: unknown): value is PlanSlug {
  return typeof value === 'string' && (PLAN_SLUGS as readonly string[]).includes(value);
}

/** Plans are database rows (operators may edit them); read them through this short-lived cache. */
export class PlanDirectory {
  private cache?: { at: number; plans: Map<string, Plan> };

  constructor(
    private readonly ds: DataSource,
    private readonly ttlMs = 30_000,
  ) {}

  async all(): Promise<Map<string, Plan>> {
    if (this.cache && Date.now() - this.cache.at < this.ttlMs) return this.cache.plans;
    const rows = await this.ds.getRepository(PlanEntity).find({ order: { level: 'ASC' } });
    const plans = new Map(
      rows.map((r) => [
        r.slug,
        {
          slug: r.slug as PlanSlug,
          name: r.name,
          level: r.level,
          monthlyTokens: r.monthlyTokens,
          rateLimitHourly: r.rateLimitHourly,
          rateLimitDaily: r.rateLimitDaily,
          retentionDays: r.retentionDays,
          priceRub: r.priceRub,
        } satisfies Plan,
      ]),
    );
    this.cache = { at: Date.now(), plans };
    return plans;
  }

  async get(slug: string): Promise<Plan> {
    const plan = (await this.all()).get(slug);
    if (!plan) throw new Error(`unknown plan ${slug}`);
    return plan;
  }

  invalidate(): void {
    this.cache = undefined;
  }
}
