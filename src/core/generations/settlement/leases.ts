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

  /** Delivered text only grows: a write that arrives late (a first output noted after a heartbeat) never lowers it. */
  async progress(generationId: number, deliveredChars: number): Promise<void> {
    await this.sql.query(
      `UPDATE generation_leases SET delivered_chars = GREATEST(delivered_chars, $2), heartbeat_at = now() WHERE generation_id = $1`,
      [generationId, deliveredChars],
    );
  }

  /** `progress` for many generations in one statement (the heartbeat of every open answer of an instance). */
  async progressMany(entries: readonly { generationId: number; deliveredChars: number }[]): Promise<void> {
    if (entries.length === 0) return;
    await this.sql.query(
      `UPDATE generation_leases l SET delivered_chars = GREATEST(l.delivered_chars, v.delivered), heartbeat_at = now()
         FROM unnest($1::int[], $2::int[]) AS v(id, delivered)
        WHERE l.generation_id = v.id`,
      [entries.map((e) => e.generationId), entries.map((e) => e.deliveredChars)],
    );
  }

  /**
   * Like progress, while the generation is still pending (its outcome waits in the billing outbox).
   * @returns false once it is settled (or its lease gone): nothing left to keep fresh
   */
  async refresh(generationId: number, deliveredChars: number): Promise<boolean> {
    const rows = await this.sql.query<unknown[]>(
      `UPDATE generation_leases l SET delivered_chars = GREATEST(l.delivered_chars, $2), heartbeat_at = now()
         FROM generations g
        WHERE l.generation_id = $1 AND g.id = l.generation_id AND g.status = 'pending'
       RETURNING 1`,
      [generationId, deliveredChars],
    );
    return rows.length > 0;
  }

  async drop(generationId: number): Promise<void> {
    await this.sql.query(`DELETE FROM generation_leases WHERE generation_id = $1`, [generationId]);
  }

  /**
   * Still-pending generations leased by this instance (at start: all of them were abandoned by the previous
   * process), or by any instance whose heartbeat is older than `staleSeconds` (it died and did not come back). A
   * chat answer that recorded no delivered text waits `silentSeconds` instead: its instance may be alive with the
   * answer's outcome in its billing outbox after a database outage (it refreshes the lease once the database is
   * back), and failing it first would leave a delivered answer unbilled.
   */
  async abandoned(opts: { own: boolean; staleSeconds: number; silentSeconds?: number }): Promise<AbandonedLease[]> {
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
          AND (($1::boolean AND l.instance_id = $2)
               OR l.heartbeat_at < now() - make_interval(secs => CASE WHEN g.category = 'text' AND l.delivered_chars = 0
                                                                       THEN $4::int ELSE $3::int END))
        LIMIT 500`,
      [opts.own, this.instanceId, opts.staleSeconds, opts.silentSeconds ?? opts.staleSeconds],
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

  /** Every pending generation of an account, leased or not (an account being deleted settles them all). */
  async ofAccount(userId: number): Promise<AbandonedLease[]> {
    const rows = await this.sql.query<
      {
        generation_id: number;
        instance_id: string | null;
        delivered_chars: number | null;
        prompt_tokens: number | null;
        model_slug: string;
        category: string;
        upstream_job_id: string | null;
        created_at: Date;
      }[]
    >(
      `SELECT g.id AS generation_id, l.instance_id, l.delivered_chars, l.prompt_tokens, g.model_slug, g.category, g.upstream_job_id, g.created_at
         FROM generations g LEFT JOIN generation_leases l ON l.generation_id = g.id
        WHERE g.user_id = $1 AND g.status = 'pending'`,
      [userId],
    );
    return rows.map((r) => ({
      generationId: r.generation_id,
      instanceId: r.instance_id ?? '',
      deliveredChars: r.delivered_chars ?? 0,
      promptTokens: r.prompt_tokens ?? 0,
      modelSlug: r.model_slug,
      category: r.category,
      // Nothing is picked up again: the account is going.
      upstreamJobId: null,
      createdAt: new Date(r.created_at),
    }));
  }

  /** Leases of finished generations (run by the maintenance job). */
  async purgeFinished(): Promise<void> {
    await this.sql.query(`DELETE FROM generation_leases l USING generations g WHERE g.id = l.generation_id AND g.status <> 'pending'`);
  }
}
