import crypto from 'node:crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Queryable } from '../core/billing/queryable';

/**
 * The hot-path SQL runner: straight to the pg pool (no ORM layer), and every statement is prepared once per
 * connection under a name derived from its text, so the big billing statements are planned once, not per call.
 * Same result shape as TypeORM's `query` for SELECT and INSERT (rows).
 */
export class FastSql implements Queryable {
  private readonly names = new Map<string, string>();

  constructor(private readonly pool: Pool) {}

  static of(ds: DataSource): FastSql {
    return new FastSql((ds.driver as unknown as { master: Pool }).master);
  }

  /**
   * A pool whose commits do not wait for the WAL flush: only for writes whose loss in a database crash costs
   * nothing that was promised (lease heartbeats), or that are kept until they are on disk (settlements, with
   * the settle journal).
   * Never for holds: a hold lost in a crash while its answer was already streaming leaves that answer with no
   * generation to bill, and the crash can hand its id to another generation.
   */
  static asyncCommitPool(url: string, max = 10): { sql: FastSql; close: () => Promise<void> } {
    const pool = new Pool({ connectionString: url, max, options: '-c synchronous_commit=off', application_name: 'nebula-gen-async' });
    pool.on('error', () => undefined);
    return { sql: new FastSql(pool), close: () => pool.end() };
  }

  private nameOf(sql: string): string {
    let name = this.names.get(sql);
    if (!name) {
      name = `q_${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
      this.names.set(sql, name);
    }
    return name;
  }

  async query<T = unknown>(sql: string, params: unknown[] = []): Promise<T> {
    const res = await this.pool.query({ name: this.nameOf(sql), text: sql, values: params });
    return res.rows as T;
  }
}
