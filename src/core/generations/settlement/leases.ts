import { Queryable } from '../../billing/queryable';

export interface AbandonedLease {
  generationId: number;
  instanceId: string;
  deliveredChars: number;
  promptTokens: number;
  modelSlug: string;
  category: string;
  upstreamJobId: string | null;
  createdAt: Date;
}

/**
 * Generations this process runs itself (chat answers, inline media calls): who runs them and, for a stream, how
 * much was delivered, refreshed every few seconds. What a crashed instance left behind is found here.
 */
export class GenerationLeases {
  constructor(
    private readonly sql: Queryable,
    readonly instanceId: string,
  ) {}

  async take(generationId: number, promptTokens = 0): Promise<void> {
    await this.sql.query(
      `INSERT INTO generation_leases (generation_id, instance_id, prompt_tokens) VALUES ($1, $2, $3)
       ON CONFLICT (generation_id) DO UPDATE SET instance_id = EXCLUDED.instance_id, heartbeat_at = now()`,
      [generationId, this.instanceId, promptTokens],
    );
  }

  async progress(generationId: number, deliveredChars: number): Promise<void> {
    await this.sql.query(`UPDATE generation_leases SET delivered_chars = $2, heartbeat_at = now() WHERE generation_id = $1`, [
      generationId,
      deliveredChars,
    ]);
  }

  async drop(generationId: number): Promise<void> {
    await this.sql.query(`DELETE FROM generation_leases WHERE generation_id = $1`, [generationId]);
  }

  /**
   * Still-pending generations leased by this instance (at start: all of them were abandoned by the previous
   * process), or by any instance whose heartbeat is older than `staleSeconds` (it died and did not come back).
   */
  async abandoned(opts: { own: boolean; staleSeconds: number }): Promise<AbandonedLease[]> {
    const rows = await this.sql.query<
      {
        generation_id: number;
        instance_id: string;
        delivered_chars: number;
        prompt_tokens: number;
        model_slug: string;
        category: string;
        upstream_job_id: string | null;
        created_at: Date;
      }[]
    >(
      `SELECT l.generation_id, l.instance_id, l.delivered_chars, l.prompt_tokens, g.model_slug, g.category, g.upstream_job_id, g.created_at
         FROM generation_leases l JOIN generations g ON g.id = l.generation_id
        WHERE g.status = 'pending'
          AND (($1::boolean AND l.instance_id = $2) OR l.heartbeat_at < now() - make_interval(secs => $3::int))
        LIMIT 500`,
      [opts.own, this.instanceId, opts.staleSeconds],
    );
    return rows.map((r) => ({
      generationId: r.generation_id,
      instanceId: r.instance_id,
      deliveredChars: r.delivered_chars,
      promptTokens: r.prompt_tokens,
      modelSlug: r.model_slug,
      category: r.category,
      upstreamJobId: r.upstream_job_id,
      createdAt: new Date(r.created_at),
    }));
  }

  /** Leases of finished generations (run by the maintenance job). */
  async purgeFinished(): Promise<void> {
    await this.sql.query(`DELETE FROM generation_leases l USING generations g WHERE g.id = l.generation_id AND g.status <> 'pending'`);
  }
}
