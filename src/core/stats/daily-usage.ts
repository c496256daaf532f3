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

export type UsageGrouping = 'day' | 'model' | 'key';

/** One model's or one API key's share of the range (`id` null: requests made without a key: web and bot). */
export interface UsageGroup extends CountAndTokens {
  id: string | number | null;
  name: string | null;
}

export interface DailyUsage {
  /** First and last UTC day of the range, `YYYY-MM-DD`. */
  from: string;
  to: string;
  group_by: UsageGrouping;
  days: number;
  total: CountAndTokens;
  series: UsageDay[];
  /** With group_by model or key: the range's totals per group, the largest first. */
  groups?: UsageGroup[];
}

export interface UsageRange {
  /** UTC midnight of the first and the last day. */
  from: Date;
  to: Date;
  groupBy: UsageGrouping;
}

/** The `days` query's cap (the last N days). */
export const USAGE_MAX_DAYS = 90;
/** The longest from..to range. */
export const USAGE_MAX_RANGE_DAYS = 366;

const DAY_MS = 86_400_000;

function emptyCategories(): Record<Category, CountAndTokens> {
  return Object.fromEntries(CATEGORIES.map((c) => [c, { count: 0, tokens: 0 }])) as Record<Category, CountAndTokens>;
}

/** The last `days` UTC days, today included. */
export function lastDays(days: number, now = new Date()): UsageRange {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { from: new Date(today - (days - 1) * DAY_MS), to: new Date(today), groupBy: 'day' };
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Completed generations per UTC day and category from `range.from` to `range.to` (both included), oldest first,
 * with every day present (zeros where nothing ran) so a chart needs no gap filling; with group_by `model` or
 * `key`, also the range's totals per model or per API key.
 */
export async function dailyUsage(ds: DataSource, userId: number, range: UsageRange, onlyKey?: number): Promise<DailyUsage> {
  const first = range.from;
  const days = Math.round((range.to.getTime() - first.getTime()) / DAY_MS) + 1;
  const end = new Date(range.to.getTime() + DAY_MS);
  const rows: { day: string; category: string; n: number; tokens: number }[] = await ds.query(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            category,
            count(*)::int AS n,
            COALESCE(sum(tokens_spent), 0)::int AS tokens
       FROM generations
      WHERE user_id = $1 AND status = 'completed' AND created_at >= $2 AND created_at < $3 AND ($4::int IS NULL OR api_key_id = $4)
      GROUP BY 1, 2`,
    [userId, first, end, onlyKey ?? null],
  );
  const series: UsageDay[] = [];
  const byDate = new Map<string, UsageDay>();
  for (let i = 0; i < days; i++) {
    const date = dayOf(new Date(first.getTime() + i * DAY_MS));
    const day: UsageDay = { date, tokens: 0, count: 0, categories: emptyCategories() };
    series.push(day);
    byDate.set(date, day);
  }
  const total = { count: 0, tokens: 0 };
  for (const r of rows) {
    const day = byDate.get(r.day);
    const bucket = day?.categories[r.category as Category];
    if (!day || !bucket) continue;
    bucket.count += r.n;
    bucket.tokens += r.tokens;
    day.count += r.n;
    day.tokens += r.tokens;
    total.count += r.n;
    total.tokens += r.tokens;
  }
  const report: DailyUsage = { from: dayOf(first), to: dayOf(range.to), group_by: range.groupBy, days, total, series };
  if (range.groupBy !== 'day') report.groups = await usageGroups(ds, userId, range.groupBy, first, end, onlyKey ?? null);
  return report;
}

async function usageGroups(
  ds: DataSource,
  userId: number,
  by: 'model' | 'key',
  from: Date,
  end: Date,
  onlyKey: number | null,
): Promise<UsageGroup[]> {
  const rows: { id: string | number | null; name: string | null; n: number; tokens: number }[] =
    by === 'model'
      ? await ds.query(
          `SELECT model_slug AS id, model_slug AS name, count(*)::int AS n, COALESCE(sum(tokens_spent), 0)::int AS tokens
             FROM generations
            WHERE user_id = $1 AND status = 'completed' AND created_at >= $2 AND created_at < $3 AND ($4::int IS NULL OR api_key_id = $4)
            GROUP BY model_slug ORDER BY tokens DESC, model_slug`,
          [userId, from, end, onlyKey],
        )
      : await ds.query(
          `SELECT g.api_key_id AS id, k.name, count(*)::int AS n, COALESCE(sum(g.tokens_spent), 0)::int AS tokens
             FROM generations g LEFT JOIN api_keys k ON k.id = g.api_key_id
            WHERE g.user_id = $1 AND g.status = 'completed' AND g.created_at >= $2 AND g.created_at < $3
              AND ($4::int IS NULL OR g.api_key_id = $4)
            GROUP BY g.api_key_id, k.name ORDER BY tokens DESC, g.api_key_id NULLS FIRST`,
          [userId, from, end, onlyKey],
        );
  return rows.map((r) => ({ id: r.id, name: r.name, count: r.n, tokens: r.tokens }));
}
