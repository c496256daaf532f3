import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The history and the request log page through a user's generations newest first. With only (user_id, id), the
 * planner often walks the primary key backwards instead, filtering out other users' rows: it assumes a user's rows
 * are spread evenly over the ids, and for a user whose rows are old (a heavy user who stopped a while ago) that walk
 * reads most of the table (230 ms over 2 million generations, issue 42). This index carries every column the
 * history filters on, so the page's ids come from an index-only scan the planner prices correctly; it replaces
 * (user_id, id), which it covers. CONCURRENTLY, outside a transaction, as in GrowthIndexes.
 */
const HISTORY_INDEX = `generations (user_id, id) INCLUDE (status, source, api_key_id, category, model_slug, created_at, user_deleted_at)`;

export class HistoryIndex1764540000000 implements MigrationInterface {
  name = 'HistoryIndex1764540000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    // An interrupted CONCURRENTLY build leaves an INVALID index behind: drop it and build again.
    await q.query('DROP INDEX CONCURRENTLY IF EXISTS generations_user_history_idx');
    await q.query(`CREATE INDEX CONCURRENTLY generations_user_history_idx ON ${HISTORY_INDEX}`);
    await q.query('DROP INDEX CONCURRENTLY IF EXISTS generations_user_created_idx');
  }

  // TypeORM's undo runs in a transaction, so no CONCURRENTLY here.
  async down(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX IF NOT EXISTS generations_user_created_idx ON generations (user_id, id)');
    await q.query('DROP INDEX IF EXISTS generations_user_history_idx');
  }
}
