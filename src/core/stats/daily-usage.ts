import { DataSource } from 'typeorm';
import { CATEGORIES, type Category } from '../catalog/types';

export interface CountAndTokens {
  count: number;
  tokens: number;
}

export interface UsageDay {
  /** UTC calendar day, `YYYY-MM-DD`. */
  date: string;
  tokens: number;
  count: number;
  categories: Record<Category, CountAndTokens>;
}

export interface DailyUsage {
  days: number;
  series: UsageDay[];
}

export const USAGE_MAX_DAYS = 90;

const DAY_MS = 86_400_000;

function emptyCategories(): Record<Category, CountAndTokens> {
  return Object.fromEntries(CATEGORIES.map((c) => [c, { count: 0, tokens: 0 }])) as Record<Category, CountAndTokens>;
}

/**
 * Completed generations per UTC day and category over the last `days` days (today included), oldest first, with
 * every day present (zeros where nothing ran) so a chart needs no gap filling.
 */
export async function dailyUsage(ds: DataSource, userId: number, days: number, now = new Date()): Promise<DailyUsage> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = new Date(today - (days - 1) * DAY_MS);
  const rows: { day: string; category: string; n: number; tokens: number }[] = await ds.query(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            category,
            count(*)::int AS n,
            COALESCE(sum(tokens_spent), 0)::int AS tokens
       FROM generations
      WHERE user_id = $1 AND status = 'completed' AND created_at >= $2
      GROUP BY 1, 2`,
    [userId, first],
  );
  const series: UsageDay[] = [];
  const byDate = new Map<string, UsageDay>();
  for (let i = 0; i < days; i++) {
    const date = new Date(first.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    const day: UsageDay = { date, tokens: 0, count: 0, categories: emptyCategories() };
    series.push(day);
    byDate.set(date, day);
  }
  for (const r of rows) {
    const day = byDate.get(r.day);
    const bucket = day?.categories[r.category as Category];
    if (!day || !bucket) continue;
    bucket.count += r.n;
    bucket.tokens += r.tokens;
    day.count += r.n;
    day.tokens += r.tokens;
  }
  return { days, series };
}
