import { DataSource } from 'typeorm';

/** Operator overview (the bot's /admin stats). */
export interface ServiceStats {
  users_total: number;
  users_new_24h: number;
  users_by_plan: Record<string, number>;
  generations_24h: number;
  failed_24h: number;
  pending_now: number;
  tokens_spent_24h: number;
  top_models_24h: { model_slug: string; count: number }[];
}

export async function serviceStats(ds: DataSource): Promise<ServiceStats> {
  const [users] = await ds.query<{ total: number; new_24h: number }[]>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE created_at >= now() - interval '24 hours'))::int AS new_24h FROM users`,
  );
  const plans = await ds.query<{ plan_slug: string; n: number }[]>(
    'SELECT plan_slug, count(*)::int AS n FROM users GROUP BY plan_slug ORDER BY plan_slug',
  );
  const [gens] = await ds.query<{ total: number; failed: number; spent: number }[]>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = 'failed'))::int AS failed,
            COALESCE(sum(tokens_spent), 0)::int AS spent
       FROM generations WHERE created_at >= now() - interval '24 hours'`,
  );
  const [pending] = await ds.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM generations WHERE status = 'pending'`);
  const top = await ds.query<{ model_slug: string; n: number }[]>(
    `SELECT model_slug, count(*)::int AS n FROM generations WHERE created_at >= now() - interval '24 hours'
      GROUP BY model_slug ORDER BY n DESC, model_slug LIMIT 5`,
  );
  return {
    users_total: users.total,
    users_new_24h: users.new_24h,
    users_by_plan: Object.fromEntries(plans.map((p) => [p.plan_slug, p.n])),
    generations_24h: gens.total,
    failed_24h: gens.failed,
    pending_now: pending.n,
    tokens_spent_24h: gens.spent,
    top_models_24h: top.map((t) => ({ model_slug: t.model_slug, count: t.n })),
  };
}
