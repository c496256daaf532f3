import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tables of the first release; generated from the entities, then reviewed by hand. */
export class InitialSchema1732200000000 implements MigrationInterface {
  name = 'InitialSchema1732200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "plans" ("slug" text NOT NULL, "name" text NOT NULL, "level" integer NOT NULL, "monthly_tokens" integer NOT NULL, "rate_limit_hourly" integer NOT NULL, "rate_limit_daily" integer NOT NULL, "retention_days" integer, "price_rub" integer NOT NULL DEFAULT '0', CONSTRAINT "UQ_82d10899e7356e28477961be716" UNIQUE ("level"), CONSTRAINT "PK_e7b71bb444e74ee067df057397e" PRIMARY KEY ("slug"))`,
    );
    await q.query(
      `CREATE TABLE "users" ("id" SERIAL NOT NULL, "name" text NOT NULL, "email" text, "phone" text, "telegram_id" bigint, "messenger_username" text, "idp_subject" text, "idp_issuer" text, "avatar_url" text, "password_hash" text, "plan_slug" text NOT NULL DEFAULT 'free', "plan_expires_at" TIMESTAMP WITH TIME ZONE, "period_started_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "next_refill_at" TIMESTAMP WITH TIME ZONE NOT NULL, "is_blocked" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_97672ac88f789774dd47f7c8be3" UNIQUE ("email"), CONSTRAINT "UQ_a000cca60bcf04454e727699490" UNIQUE ("phone"), CONSTRAINT "UQ_1a1e4649fd31ea6ec6b025c7bfc" UNIQUE ("telegram_id"), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "users_idp_identity_idx" ON "users" ("idp_issuer", "idp_subject") WHERE "idp_subject" IS NOT NULL`);
    await q.query(
      `CREATE TABLE "api_keys" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "name" text NOT NULL, "key_hash" text NOT NULL, "key_prefix" text NOT NULL, "key_last4" text NOT NULL, "last_used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_57384430aa1959f4578046c9b81" UNIQUE ("key_hash"), CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "api_keys_user_idx" ON "api_keys" ("user_id")`);
    await q.query(
      `CREATE TABLE "assistants" ("id" SERIAL NOT NULL, "owner_id" integer, "name" text NOT NULL, "description" text NOT NULL DEFAULT '', "model_slug" text NOT NULL, "system_prompt" text NOT NULL DEFAULT '', "is_public" boolean NOT NULL DEFAULT false, "is_system" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_640d8c25456e38fc20f6081d754" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "assistants_owner_idx" ON "assistants" ("owner_id")`);
    await q.query(
      `CREATE TABLE "balances" ("user_id" integer NOT NULL, "plan_tokens" integer NOT NULL DEFAULT '0', "bonus_tokens" integer NOT NULL DEFAULT '0', "tokens_used_this_period" integer NOT NULL DEFAULT '0', "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "balances_non_negative" CHECK ("plan_tokens" >= 0 AND "bonus_tokens" >= 0), CONSTRAINT "PK_864b90e3b151018347577be4f97" PRIMARY KEY ("user_id"))`,
    );
    await q.query(
      `CREATE TABLE "bot_sessions" ("key" text NOT NULL, "value" jsonb NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f6403f23c92f6af59d2c0f7c8e1" PRIMARY KEY ("key"))`,
    );
    await q.query(
      `CREATE TABLE "generations" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "model_slug" text NOT NULL, "category" text NOT NULL, "status" text NOT NULL, "source" text NOT NULL DEFAULT 'api', "prompt" text, "params" jsonb NOT NULL DEFAULT '{}', "upstream_job_id" text, "result_key" text, "result_mime" text, "result_text" text, "result_metadata" jsonb, "error" text, "error_kind" text, "tokens_reserved" integer NOT NULL DEFAULT '0', "tokens_spent" integer NOT NULL DEFAULT '0', "processing_ms" integer, "seed" integer, "eta_seconds" integer, "duration_seconds" integer, "delivery" jsonb, "sandbox" boolean NOT NULL DEFAULT false, "deadline_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, "result_deleted_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9d2a52fbde1fba42c24ec42ddd2" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "generations_model_completed_idx" ON "generations" ("model_slug", "completed_at")`);
    await q.query(`CREATE INDEX "generations_user_created_idx" ON "generations" ("user_id", "id")`);
    await q.query(
      `CREATE TABLE "idempotency_records" ("user_id" integer NOT NULL, "key" text NOT NULL, "request_hash" text NOT NULL, "state" text NOT NULL DEFAULT 'running', "response_status" integer, "response_body" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_361095756bf434c1971a5a89be4" PRIMARY KEY ("user_id", "key"))`,
    );
    await q.query(
      `CREATE TABLE "ledger_entries" ("id" BIGSERIAL NOT NULL, "user_id" integer NOT NULL, "kind" text NOT NULL, "reference" text, "plan_delta" integer NOT NULL, "bonus_delta" integer NOT NULL, "note" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6efcb84411d3f08b08450ae75d5" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "ledger_entries_user_idx" ON "ledger_entries" ("user_id", "id")`);
    await q.query(
      `CREATE UNIQUE INDEX "ledger_entries_reference_idx" ON "ledger_entries" ("user_id", "kind", "reference") WHERE "reference" IS NOT NULL`,
    );
    await q.query(
      `CREATE TABLE "password_resets" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "token_hash" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_323290a9239ad3d397ad78018ec" UNIQUE ("token_hash"), CONSTRAINT "PK_4816377aa98211c1de34469e742" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE TABLE "rate_counters" ("key" text NOT NULL, "window_start" bigint NOT NULL, "count" integer NOT NULL DEFAULT '0', "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_09aee4c3929a6d82949dab09b97" PRIMARY KEY ("key", "window_start"))`,
    );
    await q.query(`CREATE INDEX "rate_counters_expires_idx" ON "rate_counters" ("expires_at")`);
    await q.query(
      `CREATE TABLE "refresh_tokens" ("id" uuid NOT NULL, "family_id" uuid NOT NULL, "user_id" integer NOT NULL, "token_hash" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "rotated_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_a7838d2ba25be1342091b6695f1" UNIQUE ("token_hash"), CONSTRAINT "PK_7d8bee0204106019488c4c50ffa" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "refresh_tokens_family_idx" ON "refresh_tokens" ("family_id")`);
    await q.query(
      `CREATE TABLE "token_reservations" ("id" SERIAL NOT NULL, "reference" text NOT NULL, "user_id" integer NOT NULL, "plan_amount" integer NOT NULL, "bonus_amount" integer NOT NULL, "status" text NOT NULL DEFAULT 'reserved', "charged" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_ae7019051b57b06ffb65f34ba97" UNIQUE ("reference"), CONSTRAINT "token_reservations_amounts" CHECK ("plan_amount" >= 0 AND "bonus_amount" >= 0), CONSTRAINT "PK_d7b2b979f487357e11233fd9b12" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE TABLE "schedules" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "name" text NOT NULL, "request" jsonb NOT NULL, "interval_minutes" integer NOT NULL, "next_run_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_generation_id" integer, "enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7e33fc2ea755a5765e3564e66dd" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "schedules_due_idx" ON "schedules" ("enabled", "next_run_at")`);
    await q.query(
      `CREATE TABLE "user_settings" ("user_id" integer NOT NULL, "language" text NOT NULL DEFAULT 'en', "image_format" text NOT NULL DEFAULT 'webp', "notifications_enabled" boolean NOT NULL DEFAULT true, "default_image_size" text NOT NULL DEFAULT '1024x1024', "chat_model" text, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_4ed056b9344e6f7d8d46ec4b302" PRIMARY KEY ("user_id"))`,
    );
    await q.query(
      `ALTER TABLE "users" ADD CONSTRAINT "FK_669d160ca2d4d2101dede0cd294" FOREIGN KEY ("plan_slug") REFERENCES "plans"("slug") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "FK_a3baee01d8408cd3c0f89a9a973" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "assistants" ADD CONSTRAINT "FK_625fa187b518c11b2d5bd92e03a" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "balances" ADD CONSTRAINT "FK_864b90e3b151018347577be4f97" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "generations" ADD CONSTRAINT "FK_d2144f7590e23819132d9222968" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "idempotency_records" ADD CONSTRAINT "FK_424bb67027b4c3b431cd85dda16" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "ledger_entries" ADD CONSTRAINT "FK_8417854ce8bdd0d651c35e1c7ce" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "password_resets" ADD CONSTRAINT "FK_f7a4c3bc48f24df007936d217be" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "refresh_tokens" ADD CONSTRAINT "FK_3ddc983c5f7bcf132fd8732c3f4" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "token_reservations" ADD CONSTRAINT "FK_f9d16dab9498819cb03ddb91c18" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "schedules" ADD CONSTRAINT "FK_55e6651198104efea0b04568a88" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "user_settings" ADD CONSTRAINT "FK_4ed056b9344e6f7d8d46ec4b302" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS "user_settings" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "schedules" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "token_reservations" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "refresh_tokens" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "rate_counters" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "password_resets" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "ledger_entries" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "idempotency_records" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "generations" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "bot_sessions" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "balances" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "assistants" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "api_keys" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "users" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "plans" CASCADE`);
  }
}
