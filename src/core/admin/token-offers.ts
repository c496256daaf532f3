import type { DataSource } from 'typeorm';
import { PlanDirectory } from '../accounts/plans';
import { ArticleCatalog } from '../payments/articles';
import type { TokenOffer } from '../catalog/price-report';

/** What is sold for tokens: each active token package, and each plan period with its allowance. */
export async function tokenOffers(ds: DataSource): Promise<TokenOffer[]> {
  const [articles, plans] = await Promise.all([new ArticleCatalog(ds).list(), new PlanDirectory(ds).all()]);
  return articles.flatMap((a) => {
    const tokens = a.kind === 'tokens' ? a.tokens : a.plan ? (plans.get(a.plan)?.monthlyTokens ?? 0) : 0;
    return tokens && tokens > 0 ? [{ article: a.id, tokens, rub: a.priceMinor / 100, stars: a.stars }] : [];
  });
}
