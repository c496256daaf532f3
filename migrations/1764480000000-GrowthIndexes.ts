import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes that keep per-user reads and the maintenance jobs flat as the tables grow (issue 42: 10 million ledger
 * rows, 2 million generations). Built CONCURRENTLY so a live service keeps writing while they build; PostgreSQL
 * refuses that inside a transaction, hence `transaction = false` (the data source runs migrations in 'each' mode).
 * - usage by day / model / key and stats read only the covering index of the user's completed generations;
 * - the request log filtered by status walks (user_id, status, id) newest first instead of every row of the user;
 * - retention selects from the rows that still have a file, the refill from the users due, the /metrics gauge counts
 *   only open reservations, and the reservation purge finds closed ones by age.
 */
const INDEXES: readonly [name: string, definition: string][] = [
  [
    'generations_user_usage_idx',
    `generations (user_id, created_at) INCLUDE (category, model_slug, api_key_id, tokens_spent) WHERE status = 'completed'`,
  ],
  ['generations_user_status_idx', 'generations (user_id, status, id)'],
  ['generations_retention_idx', 'generations (expires_at) WHERE result_deleted_at IS NULL AND result_key IS NOT NULL'],
  ['users_next_refill_idx', 'users (next_refill_at)'],
  ['token_reservations_open_idx', `token_reservations (id) WHERE status = 'reserved'`],
  ['token_reservations_closed_idx', `token_reservations (updated_at) WHERE status <> 'reserved'`],
];

export class GrowthIndexes1764480000000 implements MigrationInterface {
  name = 'GrowthIndexes1764480000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    for (const [name, definition] of INDEXES) {
      // A CONCURRENTLY build that was interrupted leaves an INVALID index behind: drop it and build again.
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await q.query(`CREATE INDEX CONCURRENTLY ${name} ON ${definition}`);
    }
  }

  // TypeORM's undo always runs in a transaction (it ignores `transaction = false`), so no CONCURRENTLY here:
  // dropping an index is quick, its lock brief.
  async down(q: QueryRunner): Promise<void> {
    for (const [name] of [...INDEXES].reverse()) await q.query(`DROP INDEX IF EXISTS ${name}`);
  }
}
