import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which of a vendor's connections accepted a generation's upstream job (`upstream_connection`: the connection's
 * id, a hash of its base URL and key, never the key): the job is polled there, since another key's account would
 * not know it. Null for jobs accepted before vendors had several connections (their vendor's first is used).
 */
export class UpstreamConnection1764320000000 implements MigrationInterface {
  name = 'UpstreamConnection1764320000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generations" ADD "upstream_connection" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generations" DROP COLUMN "upstream_connection"`);
  }
}
