import { PLAN_LEVEL, PlanSlug } from '../catalog/types';

/** A token package: bonus tokens that never expire. */
export interface TokenPackage {
  id: string;
  title: string;
  tokens: number;
  priceRub: number;
}

/** One-time token packages sold through the carrier flow. Plans are sold as `plan_<slug>` articles (prices: the plans table). */
export const TOKEN_PACKAGES: readonly TokenPackage[] = Object.freeze([
  { id: 'tokens_100', title: '100 tokens', tokens: 100, priceRub: 149 },
  { id: 'tokens_500', title: '500 tokens', tokens: 500, priceRub: 590 },
  { id: 'tokens_1500', title: '1,500 tokens', tokens: 1500, priceRub: 1490 },
  { id: 'tokens_5000', title: '5,000 tokens', tokens: 5000, priceRub: 3990 },
]);

/** Paid plans are sold for one billing period; Starter is not an article. */
export const PLAN_ARTICLE_PREFIX = 'plan_';

export function planArticleId(slug: PlanSlug): string {
  return `${PLAN_ARTICLE_PREFIX}${slug}`;
}

export function isPaidPlan(slug: PlanSlug): boolean {
  return PLAN_LEVEL[slug] > 0;
}
