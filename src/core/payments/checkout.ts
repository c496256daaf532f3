import crypto from 'node:crypto';
import { PlanDirectory } from '../accounts/plans';
import { DomainError } from '../errors';
import { PLAN_SLUGS } from '../catalog/types';
import { TOKEN_PACKAGES, isPaidPlan, planArticleId } from './articles';

/** The article object of the payment answers. */
export interface ArticleView {
  id: string;
  kind: 'tokens' | 'plan';
  title: string;
  price_rub: number;
  tokens?: number;
  plan?: string;
  period_days?: number;
}

export interface CheckoutView {
  status: 'pending';
  payment_id: string;
  article: ArticleView;
}

/** The carrier endpoints answer 400 for an article id that is not sold (spec, Versioning). */
export class UnknownArticleError extends DomainError {
  readonly code = 'unknown_article';
  constructor(readonly articleId: string) {
    super(`Unknown article id: ${articleId.slice(0, 64)}`, { field: 'article_id' });
  }
}

const PLAN_PERIOD_DAYS = 30;

export async function listArticles(plans: PlanDirectory): Promise<ArticleView[]> {
  const packages = TOKEN_PACKAGES.map((p): ArticleView => ({ id: p.id, kind: 'tokens', title: p.title, price_rub: p.priceRub, tokens: p.tokens }));
  const all = await plans.all();
  const planArticles = PLAN_SLUGS.filter(isPaidPlan)
    .map((slug) => all.get(slug))
    .filter((p) => p !== undefined)
    .map(
      (p): ArticleView => ({
        id: planArticleId(p.slug),
        kind: 'plan',
        title: `${p.name} plan, ${PLAN_PERIOD_DAYS} days`,
        price_rub: p.priceRub,
        tokens: p.monthlyTokens,
        plan: p.slug,
        period_days: PLAN_PERIOD_DAYS,
      }),
    );
  return [...packages, ...planArticles];
}

/** @throws UnknownArticleError */
export async function findArticle(plans: PlanDirectory, articleId: string): Promise<ArticleView> {
  const articles = await listArticles(plans);
  const found = articles.find((a) => a.id === articleId);
  if (!found) throw new UnknownArticleError(articleId);
  return found;
}

/**
 * Starts a carrier payment for an article. The payment-provider integration is not built yet: the answer is a
 * `pending` payment that charges nothing and grants nothing; a confirmed payment will grant the article later.
 * @throws UnknownArticleError
 */
export async function startCheckout(plans: PlanDirectory, articleId: string): Promise<CheckoutView> {
  const article = await findArticle(plans, articleId);
  return { status: 'pending', payment_id: `pay_${crypto.randomUUID().replace(/-/g, '')}`, article };
}
