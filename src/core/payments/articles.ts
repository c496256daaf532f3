import { DataSource } from 'typeorm';
import { ArticleEntity } from '../../db/entities';
import { UnknownArticleError } from './errors';

/** Stars subscriptions are sold for exactly this period (the Bot API allows only 30 days). */
export const STARS_SUBSCRIPTION_PERIOD_SECONDS = 2_592_000;
export const RUB = 'RUB';
export const STARS_CURRENCY = 'XTR';

export interface Article {
  id: string;
  kind: 'tokens' | 'plan';
  title: string;
  tokens: number | null;
  plan: string | null;
  periodDays: number | null;
  /** Kopecks. */
  priceMinor: number;
  currency: string;
  stars: number;
}

/** The wire form of GET /api/v2/payments/articles (decisions.md): fields that do not apply are null. */
export interface ArticleView {
  id: string;
  kind: 'tokens' | 'plan';
  title: string;
  tokens: number | null;
  plan: string | null;
  period_days: number | null;
  price: { amount: number; currency: string };
  stars: number;
}

export interface ArticlePatch {
  priceMinor?: number;
  stars?: number;
  title?: string;
  active?: boolean;
}

const toArticle = (r: ArticleEntity): Article => ({
  id: r.id,
  kind: r.kind,
  title: r.title,
  tokens: r.tokens,
  plan: r.planSlug,
  periodDays: r.periodDays,
  priceMinor: r.priceMinor,
  currency: r.currency,
  stars: r.stars,
});

/** Minor units (kopecks) to the amount shown on the wire (rubles, two decimals at most). */
export function majorAmount(minor: number, currency: string): number {
  return currency === STARS_CURRENCY ? minor : Math.round(minor) / 100;
}

export function toArticleView(a: Article): ArticleView {
  return {
    id: a.id,
    kind: a.kind,
    title: a.title,
    tokens: a.tokens,
    plan: a.plan,
    period_days: a.periodDays,
    price: { amount: majorAmount(a.priceMinor, a.currency), currency: a.currency },
    stars: a.stars,
  };
}

/** Articles are rows (seeded by a migration; operators edit them with `npm run cli -- articles:set`). */
export class ArticleCatalog {
  constructor(private readonly ds: DataSource) {}

  async list(): Promise<Article[]> {
    const rows = await this.ds.getRepository(ArticleEntity).find({ where: { active: true }, order: { sort: 'ASC', id: 'ASC' } });
    return rows.map(toArticle);
  }

  /** Every row, inactive ones too (the operator's view). */
  async all(): Promise<(Article & { active: boolean })[]> {
    const rows = await this.ds.getRepository(ArticleEntity).find({ order: { sort: 'ASC', id: 'ASC' } });
    return rows.map((r) => ({ ...toArticle(r), active: r.active }));
  }

  /**
   * An operator's edit of one article: prices, title, whether it is sold. Orders already made keep their own copy.
   * @throws UnknownArticleError
   */
  async update(id: string, patch: ArticlePatch): Promise<Article & { active: boolean }> {
    const repo = this.ds.getRepository(ArticleEntity);
    const row = await repo.findOneBy({ id });
    if (!row) throw new UnknownArticleError(id);
    if (patch.priceMinor !== undefined) row.priceMinor = patch.priceMinor;
    if (patch.stars !== undefined) row.stars = patch.stars;
    if (patch.title !== undefined) row.title = patch.title;
    if (patch.active !== undefined) row.active = patch.active;
    const saved = await repo.save(row);
    return { ...toArticle(saved), active: saved.active };
  }

  /** @throws UnknownArticleError for an unknown or inactive id */
  async require(id: string): Promise<Article> {
    const row = await this.ds.getRepository(ArticleEntity).findOneBy({ id, active: true });
    if (!row) throw new UnknownArticleError(id);
    return toArticle(row);
  }
}
