import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console's revenue report reads a range of time across every account: the orders paid in it and the
 * generations finished in it. Without these it scans both tables whole (2 million generations at issue 42's size).
 * The generations' index covers what the report sums, so a range is read from the index alone. Built CONCURRENTLY
 * (a live service keeps writing), hence `transaction = false`.
 */
const INDEXES: readonly [name: string, definition: string][] = [
  ['payment_orders_paid_at_idx', `payment_orders (paid_at) INCLUDE (status, currency, amount_minor) WHERE paid_at IS NOT NULL`],
  [
    'generations_completed_at_idx',
    `generations (completed_at) INCLUDE (model_slug, status, tokens_spent, vendor_cost_usd) WHERE completed_at IS NOT NULL AND NOT sandbox`,
  ],
];

export class RevenueIndexes1764474000000 implements MigrationInterface {
  name = 'RevenueIndexes1764474000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    for (const [name, definition] of INDEXES) {
      // An interrupted CONCURRENTLY build leaves an INVALID index behind: drop it and build again.
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await q.query(`CREATE INDEX CONCURRENTLY ${name} ON ${definition}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [name] of [...INDEXES].reverse()) await q.query(`DROP INDEX IF EXISTS ${name}`);
  }
}
