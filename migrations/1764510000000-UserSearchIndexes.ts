import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console's account search (`GET /api/v2/admin/users?q=`) matches an email and a Telegram username by prefix
 * (`LIKE 'ali%'`). The unique index on email does not serve a LIKE under the database's collation, and usernames had
 * none, so each search read every user (issue 42 counts 100,000 accounts). Pattern-ops indexes let every branch of
 * the search (id, Telegram id, phone, email, username) come from an index. CONCURRENTLY, outside a transaction, as
 * in GrowthIndexes.
 */
const INDEXES: readonly [name: string, definition: string][] = [
  ['users_email_prefix_idx', 'users (email text_pattern_ops)'],
  ['users_username_prefix_idx', 'users (lower(messenger_username) text_pattern_ops)'],
];

export class UserSearchIndexes1764510000000 implements MigrationInterface {
  name = 'UserSearchIndexes1764510000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    for (const [name, definition] of INDEXES) {
      // An interrupted CONCURRENTLY build leaves an INVALID index behind: drop it and build again.
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await q.query(`CREATE INDEX CONCURRENTLY ${name} ON ${definition}`);
    }
  }

  // TypeORM's undo runs in a transaction, so no CONCURRENTLY here: dropping an index is quick.
  async down(q: QueryRunner): Promise<void> {
    for (const [name] of [...INDEXES].reverse()) await q.query(`DROP INDEX IF EXISTS ${name}`);
  }
}
