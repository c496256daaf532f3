// The operator's revenue report: what came in (paid orders, RUB and Stars), what the vendors cost (each generation's
// recorded vendor cost in USD) and the margin between them, per day or per model.
import type { DataSource } from 'typeorm';
import { ParamError } from '../catalog/errors';
import type { CurrencyRates } from '../catalog/price-report';

export type RevenueGrouping = 'day' | 'model';

export interface RevenueQuery {
  from: Date;
  /** Exclusive. */
  to: Date;
  groupBy: RevenueGrouping;
}

export interface RevenueLine {
  revenueRub: number;
  revenueStars: number;
  /** Paid orders; null per model (an order buys tokens, not a model). */
  orders: number | null;
  generations: number;
  tokens: number;
  vendorCostUsd: number;
  marginUsd: number;
}

export interface RevenueRow extends RevenueLine {
  /** `YYYY-MM-DD` (UTC) or the model's slug. */
  key: string;
}

export interface RevenueReport {
  from: Date;
  to: Date;
  groupBy: RevenueGrouping;
  rows: RevenueRow[];
  totals: RevenueLine;
}

/** Orders that brought money in and kept it: a refunded order (or one being refunded) is not revenue. */
const EARNING = `('paid', 'fulfilled')`;
const MAX_RANGE_DAYS = 366;

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

export class RevenueReports {
  constructor(
    private readonly ds: DataSource,
    private readonly rates: CurrencyRates,
  ) {}

  /**
   * Revenue of the orders paid in [from, to) and the generations finished in it. Per model, each order's money is
   * attributed to the models in proportion to the tokens they consumed in the range (pro rata).
   * @throws ParamError
   */
  async report(q: RevenueQuery): Promise<RevenueReport> {
    if (!(q.from.getTime() < q.to.getTime())) throw new ParamError('from', '`from` must be before `to`');
    if (q.to.getTime() - q.from.getTime() > MAX_RANGE_DAYS * 86_400_000) {
      throw new ParamError('to', `a report covers at most ${MAX_RANGE_DAYS} days`);
    }
    const [money] = await this.ds.query<{ rub: string | null; stars: string | null; orders: string }[]>(
      `SELECT sum(amount_minor) FILTER (WHERE currency = 'RUB') / 100.0 AS rub,
              sum(amount_minor) FILTER (WHERE currency = 'XTR') AS stars, count(*) AS orders
         FROM payment_orders WHERE status IN ${EARNING} AND paid_at >= $1 AND paid_at < $2`,
      [q.from, q.to],
    );
    const totalRub = Number(money?.rub ?? 0);
    const totalStars = Number(money?.stars ?? 0);
    const rows = q.groupBy === 'day' ? await this.byDay(q) : await this.byModel(q, totalRub, totalStars);
    const sum = (f: (r: RevenueRow) => number) => rows.reduce((s, r) => s + f(r), 0);
    const vendorCostUsd = round(
      sum((r) => r.vendorCostUsd),
      6,
    );
    return {
      from: q.from,
      to: q.to,
      groupBy: q.groupBy,
      rows,
      totals: this.line(
        totalRub,
        totalStars,
        Number(money?.orders ?? 0),
        sum((r) => r.generations),
        sum((r) => r.tokens),
        vendorCostUsd,
      ),
    };
  }

  private line(rub: number, stars: number, orders: number | null, generations: number, tokens: number, costUsd: number): RevenueLine {
    const incomeUsd = rub / this.rates.rubPerUsd + stars * this.rates.usdPerStar;
    return {
      revenueRub: round(rub, 2),
      revenueStars: round(stars, 2),
      orders,
      generations,
      tokens,
      vendorCostUsd: round(costUsd, 6),
      marginUsd: round(incomeUsd - costUsd, 6),
    };
  }

  private async byDay(q: RevenueQuery): Promise<RevenueRow[]> {
    const rows = await this.ds.query<
      { day: string; rub: string; stars: string; orders: string; generations: string; tokens: string; cost: string }[]
    >(
      `WITH o AS (
         SELECT (paid_at AT TIME ZONE 'UTC')::date AS day,
                coalesce(sum(amount_minor) FILTER (WHERE currency = 'RUB'), 0) / 100.0 AS rub,
                coalesce(sum(amount_minor) FILTER (WHERE currency = 'XTR'), 0) AS stars, count(*) AS orders
           FROM payment_orders WHERE status IN ${EARNING} AND paid_at >= $1 AND paid_at < $2 GROUP BY 1
       ), g AS (
         SELECT (completed_at AT TIME ZONE 'UTC')::date AS day,
                count(*) FILTER (WHERE status = 'completed') AS generations,
                coalesce(sum(tokens_spent), 0) AS tokens, coalesce(sum(vendor_cost_usd), 0) AS cost
           FROM generations WHERE completed_at >= $1 AND completed_at < $2 AND NOT sandbox GROUP BY 1
       )
       SELECT to_char(coalesce(o.day, g.day), 'YYYY-MM-DD') AS day, coalesce(o.rub, 0) AS rub, coalesce(o.stars, 0) AS stars,
              coalesce(o.orders, 0) AS orders, coalesce(g.generations, 0) AS generations,
              coalesce(g.tokens, 0) AS tokens, coalesce(g.cost, 0) AS cost
         FROM o FULL JOIN g ON g.day = o.day ORDER BY 1`,
      [q.from, q.to],
    );
    return rows.map((r) => ({
      key: r.day,
      ...this.line(Number(r.rub), Number(r.stars), Number(r.orders), Number(r.generations), Number(r.tokens), Number(r.cost)),
    }));
  }

  private async byModel(q: RevenueQuery, totalRub: number, totalStars: number): Promise<RevenueRow[]> {
    const rows = await this.ds.query<{ model: string; generations: string; tokens: string; cost: string }[]>(
      `SELECT model_slug AS model, count(*) FILTER (WHERE status = 'completed') AS generations,
              coalesce(sum(tokens_spent), 0) AS tokens, coalesce(sum(vendor_cost_usd), 0) AS cost
         FROM generations WHERE completed_at >= $1 AND completed_at < $2 AND NOT sandbox
        GROUP BY model_slug ORDER BY sum(tokens_spent) DESC NULLS LAST, model_slug`,
      [q.from, q.to],
    );
    const allTokens = rows.reduce((s, r) => s + Number(r.tokens), 0);
    return rows.map((r) => {
      const share = allTokens > 0 ? Number(r.tokens) / allTokens : 0;
      return {
        key: r.model,
        ...this.line(totalRub * share, totalStars * share, null, Number(r.generations), Number(r.tokens), Number(r.cost)),
      };
    });
  }
}
