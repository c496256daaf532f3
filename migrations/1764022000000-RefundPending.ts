import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A carrier refund can be answered `pending`: the order waits in `refund_pending` (nothing taken back yet) while a
 * job follows the refund up by its provider id until it succeeds or is canceled.
 */
export class RefundPending1764022000000 implements MigrationInterface {
  name = 'RefundPending1764022000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payment_orders DROP CONSTRAINT "payment_orders_status"`);
    await q.query(
      `ALTER TABLE payment_orders ADD CONSTRAINT "payment_orders_status"
         CHECK ("status" IN ('pending', 'paid', 'fulfilled', 'canceled', 'expired', 'refund_pending', 'refunded'))`,
    );
    await q.query(`ALTER TABLE payment_orders ADD COLUMN provider_refund_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE payment_orders SET status = 'fulfilled' WHERE status = 'refund_pending'`);
    await q.query(`ALTER TABLE payment_orders DROP COLUMN provider_refund_id`);
    await q.query(`ALTER TABLE payment_orders DROP CONSTRAINT "payment_orders_status"`);
    await q.query(
      `ALTER TABLE payment_orders ADD CONSTRAINT "payment_orders_status"
         CHECK ("status" IN ('pending', 'paid', 'fulfilled', 'canceled', 'expired', 'refunded'))`,
    );
  }
}
