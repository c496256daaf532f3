import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which store the rate counters run on, under which epoch: one row that every admission checks (locked shared) and
 * every switch between Redis and PostgreSQL, or restore of an empty or replaced Redis, changes (locked
 * exclusively), so no two stores admit at the same time and nothing counted is lost across a switch.
 */
export class RateCounterMode1764230100000 implements MigrationInterface {
  name = 'RateCounterMode1764230100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "rate_counter_state" ("id" smallint NOT NULL, "epoch" bigint NOT NULL DEFAULT '0', "mode" text NOT NULL DEFAULT 'postgres', "redis_run_id" text, "changed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_78a3b7bfe0b77785f63900cc8d9" PRIMARY KEY ("id"))`,
    );
    await q.query(`INSERT INTO "rate_counter_state" ("id") VALUES (1)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "rate_counter_state"`);
  }
}
