import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook endpoints, their deliveries and attempts, and the once-per-period balance.low marker. */
export class Webhooks1763800300000 implements MigrationInterface {
  name = 'Webhooks1763800300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "webhook_endpoints" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "url" text NOT NULL, "events" text array NOT NULL, "secret" text NOT NULL, "status" text NOT NULL DEFAULT 'active', "failing_since" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_054c4cfb95223732f5939d2d546" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "webhook_endpoints_user_idx" ON "webhook_endpoints" ("user_id")`);
    await q.query(
      `CREATE TABLE "webhook_deliveries" ("id" SERIAL NOT NULL, "endpoint_id" integer NOT NULL, "message_id" text NOT NULL, "event" text NOT NULL, "payload" text NOT NULL, "state" text NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "lease_until" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("next_attempt_at") WHERE "state" = 'pending'`);
    await q.query(`CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" ("endpoint_id")`);
    await q.query(
      `CREATE TABLE "webhook_attempts" ("id" SERIAL NOT NULL, "delivery_id" integer NOT NULL, "endpoint_id" integer NOT NULL, "attempt" integer NOT NULL, "succeeded" boolean NOT NULL, "status_code" integer, "error" text, "response_body" text, "latency_ms" integer NOT NULL, "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2de7e7887ad97de459adab62638" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "webhook_attempts_endpoint_idx" ON "webhook_attempts" ("endpoint_id", "id")`);
    await q.query(
      `CREATE TABLE "webhook_balance_alerts" ("user_id" integer NOT NULL, "period_started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_019053f0437467b79d68318869a" PRIMARY KEY ("user_id", "period_started_at"))`,
    );
    await q.query(
      `ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "FK_1f1a98a1a1faabacca9aff7ab6e" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "FK_0b882c26a9b91c26e6e86b4867c" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "webhook_attempts" ADD CONSTRAINT "FK_0d56d91d61b827bb2079c256538" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "webhook_balance_alerts" ADD CONSTRAINT "FK_5b8fa82f1ab6f405368ad0db321" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "webhook_balance_alerts" DROP CONSTRAINT "FK_5b8fa82f1ab6f405368ad0db321"`);
    await q.query(`ALTER TABLE "webhook_attempts" DROP CONSTRAINT "FK_0d56d91d61b827bb2079c256538"`);
    await q.query(`ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_0b882c26a9b91c26e6e86b4867c"`);
    await q.query(`ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "FK_1f1a98a1a1faabacca9aff7ab6e"`);
    await q.query(`DROP TABLE "webhook_balance_alerts"`);
    await q.query(`DROP INDEX "public"."webhook_attempts_endpoint_idx"`);
    await q.query(`DROP TABLE "webhook_attempts"`);
    await q.query(`DROP INDEX "public"."webhook_deliveries_endpoint_idx"`);
    await q.query(`DROP INDEX "public"."webhook_deliveries_due_idx"`);
    await q.query(`DROP TABLE "webhook_deliveries"`);
    await q.query(`DROP INDEX "public"."webhook_endpoints_user_idx"`);
    await q.query(`DROP TABLE "webhook_endpoints"`);
  }
}
