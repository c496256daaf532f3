import { MigrationInterface, QueryRunner } from 'typeorm';

/** Result files are looked up by key (GET /files/...), and the deadline sweeper scans pending generations. */
export class GenerationLookups1732200000002 implements MigrationInterface {
  name = 'GenerationLookups1732200000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "generations_result_key_idx" ON "generations" ("result_key")`);
    await q.query(`CREATE INDEX "generations_pending_deadline_idx" ON "generations" ("deadline_at") WHERE "status" = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "generations_pending_deadline_idx"`);
    await q.query(`DROP INDEX "generations_result_key_idx"`);
  }
}
