import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An Idempotency-Key remembers the generations its attempt opened. An attempt that fails after opening them (an
 * outage between the vendor's answer and the client's) keeps them on the key, state `failed`: a retry answers
 * with them while one may still be billed, and runs anew only once all of them failed. An outage never charges
 * one request twice.
 */
export class IdempotencyGenerations1764310200000 implements MigrationInterface {
  name = 'IdempotencyGenerations1764310200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_records ADD COLUMN generation_ids integer[]`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM idempotency_records WHERE state = 'failed'`);
    await q.query(`ALTER TABLE idempotency_records DROP COLUMN generation_ids`);
  }
}
