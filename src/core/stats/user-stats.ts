import { DataSource } from 'typeorm';

export interface CountAndTokens {
  count: number;
  tokens: number;
}

/** The spec's Stats object. */
export interface StatsView {
  total_generations: number;
  tokens_spent_total: number;
  breakdown: { text: CountAndTokens; image: CountAndTokens; video: CountAndTokens; audio: CountAndTokens; tools: CountAndTokens };
  recent_30d: { generations: number; tokens_spent: number };
}

type BreakdownKey = keyof StatsView['breakdown'];

/** Catalog categories folded into the Stats buckets (speech, transcription and music are all `audio`). */
const BUCKET: Record<string, BreakdownKey> = {
  text: 'text',
  image: 'image',
  video: 'video',
  tts: 'audio',
  stt: 'audio',
  music: 'audio',
  tool: 'tools',
};

/** Completed generations since the account was created, by bucket, and over the last 30 days. */
export async function userStats(ds: DataSource, userId: number, onlyKey?: number): Promise<StatsView> {
  const rows: { category: string; n: number; tokens: number; recent_n: number; recent_tokens: number }[] = await ds.query(
    `SELECT category,
            count(*)::int AS n,
            COALESCE(sum(tokens_spent), 0)::int AS tokens,
            (count(*) FILTER (WHERE created_at >= now() - interval '30 days'))::int AS recent_n,
            COALESCE(sum(tokens_spent) FILTER (WHERE created_at >= now() - interval '30 days'), 0)::int AS recent_tokens
       FROM generations
      WHERE user_id = $1 AND status = 'completed' AND ($2::int IS NULL OR api_key_id = $2)
      GROUP BY category`,
    [userId, onlyKey ?? null],
  );
  const zero = (): CountAndTokens => ({ count: 0, tokens: 0 });
  const stats: StatsView = {
    total_generations: 0,
    tokens_spent_total: 0,
    breakdown: { text: zero(), image: zero(), video: zero(), audio: zero(), tools: zero() },
    recent_30d: { generations: 0, tokens_spent: 0 },
  };
  for (const r of rows) {
    stats.total_generations += r.n;
    stats.tokens_spent_total += r.tokens;
    stats.recent_30d.generations += r.recent_n;
    stats.recent_30d.tokens_spent += r.recent_tokens;
    const bucket = BUCKET[r.category];
    if (bucket) {
      stats.breakdown[bucket].count += r.n;
      stats.breakdown[bucket].tokens += r.tokens;
    }
  }
  return stats;
}
