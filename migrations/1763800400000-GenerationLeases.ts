import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which instance is running a generation in its own process (a chat answer, an inline media call), and how far a
 * stream got: after a crash, the instance's restart (or, for a stream, any instance once the heartbeat is stale)
 * settles what was delivered at once instead of waiting for the deadline.
 */
export class GenerationLeases1763800400000 implements MigrationInterface {
  name = 'GenerationLeases1763800400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "generation_leases" ("generation_id" integer NOT NULL, "instance_id" text NOT NULL, "delivered_chars" integer NOT NULL DEFAULT 0, "prompt_tokens" integer NOT NULL DEFAULT 0, "heartbeat_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_eac58aa026735dfe6f962b2afb6" PRIMARY KEY ("generation_id"))`,
    );
    await q.query(`CREATE INDEX "generation_leases_instance_idx" ON "generation_leases" ("instance_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "generation_leases"`);
  }
}
