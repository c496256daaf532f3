import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An `Idempotency-Key`'s running attempt names its instance, itself and its deadline: a retry after the deadline takes the
 * key over (runs once), and an instance that restarts releases the attempts its previous process left running.
 */
export class IdempotencyAttemptOwner1764023000000 implements MigrationInterface {
  name = 'IdempotencyAttemptOwner1764023000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "idempotency_records" ADD "instance_id" text`);
    await q.query(`ALTER TABLE "idempotency_records" ADD "running_until" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "idempotency_records" ADD "attempt_id" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "idempotency_records" DROP COLUMN "attempt_id"`);
    await q.query(`ALTER TABLE "idempotency_records" DROP COLUMN "running_until"`);
    await q.query(`ALTER TABLE "idempotency_records" DROP COLUMN "instance_id"`);
  }
}
