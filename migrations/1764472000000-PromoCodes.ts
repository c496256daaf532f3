import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Promo codes (issue 40): an operator's codes (`promo_codes`: bonus tokens, or a plan for some days; a use count
 * that never passes `max_uses`), and one row per account that redeemed one (`promo_redemptions`: once per account).
 */
export class PromoCodes1764472000000 implements MigrationInterface {
  name = 'PromoCodes1764472000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "promo_codes" ("id" SERIAL NOT NULL, "code" text NOT NULL, "bonus_tokens" integer, "plan_slug" text, "plan_days" integer, ` +
        `"max_uses" integer NOT NULL, "uses" integer NOT NULL DEFAULT '0', "expires_at" TIMESTAMP WITH TIME ZONE, "created_by" integer, ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_2f096c406a9d9d5b8ce204190c3" UNIQUE ("code"), ` +
        `CONSTRAINT "promo_codes_uses_check" CHECK ("uses" >= 0 AND "uses" <= "max_uses"), ` +
        `CONSTRAINT "promo_codes_reward_check" CHECK (("bonus_tokens" IS NOT NULL) <> ("plan_slug" IS NOT NULL AND "plan_days" IS NOT NULL)), ` +
        `CONSTRAINT "PK_c7b4f01710fda5afa056a2b4a35" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE TABLE "promo_redemptions" ("promo_id" integer NOT NULL, "user_id" integer NOT NULL, ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_36c307fda2ef207c4c6eec497e8" PRIMARY KEY ("promo_id", "user_id"))`,
    );
    await q.query(`CREATE INDEX "promo_redemptions_user_idx" ON "promo_redemptions" ("user_id")`);
    await q.query(
      `ALTER TABLE "promo_codes" ADD CONSTRAINT "FK_b92a143baf32a667bb94c3ba38d" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "promo_redemptions" ADD CONSTRAINT "FK_4e33dae5b3bbb4b4c7055870219" FOREIGN KEY ("promo_id") REFERENCES "promo_codes"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "promo_redemptions" ADD CONSTRAINT "FK_8fd9caec505c3d0e23664b79209" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "promo_redemptions"`);
    await q.query(`DROP TABLE "promo_codes"`);
  }
}
