import type { DataSource } from 'typeorm';

/**
 * JSON values by key on the `bot_sessions` table: one jsonb row per key (the bot's sessions and conversation
 * state, as a grammY storage adapter). Every process reads and writes the same rows, so a restart or another
 * instance continues where the last one stopped. `prefix` keeps different kinds of state apart in the one table.
 */
export class JsonStore<T> {
  constructor(
    private readonly ds: DataSource,
    private readonly prefix = '',
  ) {}

  private key(key: string): string {
    return `${this.prefix}${key}`;
  }

  async read(key: string): Promise<T | undefined> {
    const rows = await this.ds.query<{ value: T }[]>('SELECT value FROM bot_sessions WHERE key = $1', [this.key(key)]);
    return rows[0]?.value;
  }

  async write(key: string, value: T): Promise<void> {
    await this.ds.query(
      `INSERT INTO bot_sessions (key, value, updated_at) VALUES ($1, $2::jsonb, now())
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [this.key(key), JSON.stringify(value)],
    );
  }

  async delete(key: string): Promise<void> {
    await this.ds.query('DELETE FROM bot_sessions WHERE key = $1', [this.key(key)]);
  }

  async has(key: string): Promise<boolean> {
    const rows = await this.ds.query<unknown[]>('SELECT 1 FROM bot_sessions WHERE key = $1', [this.key(key)]);
    return rows.length > 0;
  }

  /** Removes rows of this prefix untouched for `days` (abandoned chats). */
  async purgeOlderThan(days: number): Promise<number> {
    // A SELECT around the DELETE: TypeORM answers a bare DELETE with [rows, count] rather than rows.
    const rows = await this.ds.query<{ n: number }[]>(
      `WITH gone AS (
         DELETE FROM bot_sessions WHERE key LIKE $1 AND updated_at < now() - make_interval(days => $2) RETURNING key
       ) SELECT count(*)::int AS n FROM gone`,
      [`${this.prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, days],
    );
    return rows[0]?.n ?? 0;
  }
}

/** Opens stores by prefix on one database, so the bot gets a factory rather than the DataSource. */
export class JsonStores {
  constructor(private readonly ds: DataSource) {}

  open<T>(prefix: string): JsonStore<T> {
    return new JsonStore<T>(this.ds, prefix);
  }
}
