import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments that fulfilled no order (the account deleted with its checkout open, the order canceled, a renewal of a
 * deleted account's subscription) are refunded; each is recorded once here, with what became of its refund, so the
 * books show the money given back and the admins are told once per payment.
 */
export class OrphanPayments1764310100000 implements MigrationInterface {
  name = 'OrphanPayments1764310100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE orphan_payments (
        provider text NOT NULL,
        charge_id text NOT NULL,
        amount_minor integer NOT NULL,
        currency text NOT NULL,
        reference text,
        reason text NOT NULL,
        outcome text NOT NULL,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "PK_fbb1722f7788fc61b3f9ccb63c0" PRIMARY KEY (provider, charge_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE orphan_payments`);
  }
}
