import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Broadcasts (issue 40): an operator's message to the bot users of a segment (`broadcasts`), one durable row per
 * recipient (`broadcast_recipients`, claimed before each send so a restart resumes without sending twice), and
 * `users.bot_blocked_at`, set when Telegram answers that the user blocked the bot.
 */
export class Broadcasts1764541000000 implements MigrationInterface {
  name = 'Broadcasts1764541000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "broadcasts" ("id" SERIAL NOT NULL, "text" text NOT NULL, "segment" jsonb NOT NULL, "status" text NOT NULL DEFAULT 'queued', ` +
        `"total" integer NOT NULL, "created_by" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ` +
        `"started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, ` +
        `CONSTRAINT "broadcasts_status" CHECK ("status" IN ('queued', 'sending', 'done', 'canceled')), ` +
        `CONSTRAINT "PK_b0586900034d0726bbdcb1b21b2" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "broadcasts_open_idx" ON "broadcasts" ("id") WHERE "status" IN ('queued', 'sending')`);
    await q.query(
      `CREATE TABLE "broadcast_recipients" ("broadcast_id" integer NOT NULL, "user_id" integer NOT NULL, "chat_id" bigint NOT NULL, ` +
        `"status" text NOT NULL DEFAULT 'pending', "claimed_at" TIMESTAMP WITH TIME ZONE, "error" text, ` +
        `"updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ` +
        `CONSTRAINT "broadcast_recipients_status" CHECK ("status" IN ('pending', 'sending', 'sent', 'failed', 'blocked', 'canceled')), ` +
        `CONSTRAINT "PK_c8902aad4e18f9a9fd1f093c77b" PRIMARY KEY ("broadcast_id", "user_id"))`,
    );
    await q.query(`CREATE INDEX "broadcast_recipients_status_idx" ON "broadcast_recipients" ("broadcast_id", "status")`);
    await q.query(`ALTER TABLE "users" ADD "bot_blocked_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(
      `ALTER TABLE "broadcasts" ADD CONSTRAINT "FK_fc3f96d59154bdea53d7b3de609" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "broadcast_recipients" ADD CONSTRAINT "FK_aa96157e3531adccc4d09fec936" FOREIGN KEY ("broadcast_id") REFERENCES "broadcasts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "broadcast_recipients" ADD CONSTRAINT "FK_3001f7372b502b153bcf7fd2ecd" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "broadcast_recipients"`);
    await q.query(`DROP TABLE "broadcasts"`);
    await q.query(`ALTER TABLE "users" DROP COLUMN "bot_blocked_at"`);
  }
}
