import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Referrals: each account's invitation code (`referral_codes`, made when first asked for), and one row per invited
 * account (`referrals`, keyed by the invitee: tied once), with the bonuses credited at the invitee's first payment.
 */
export class Referrals1764400000000 implements MigrationInterface {
  name = 'Referrals1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "referral_codes" ("user_id" integer NOT NULL, "code" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ` +
        `CONSTRAINT "UQ_adda7b9deda346ff710695f4968" UNIQUE ("code"), CONSTRAINT "PK_c369901fa4e5d32ad6bc69a11e0" PRIMARY KEY ("user_id"))`,
    );
    await q.query(
      `CREATE TABLE "referrals" ("invitee_id" integer NOT NULL, "inviter_id" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ` +
        `"rewarded_at" TIMESTAMP WITH TIME ZONE, "reward_order_id" integer, "inviter_bonus" integer NOT NULL DEFAULT '0', "invitee_bonus" integer NOT NULL DEFAULT '0', ` +
        `CONSTRAINT "PK_8944c646adc9219296927ba7efe" PRIMARY KEY ("invitee_id"))`,
    );
    await q.query(`CREATE INDEX "referrals_inviter_idx" ON "referrals" ("inviter_id")`);
    await q.query(
      `ALTER TABLE "referral_codes" ADD CONSTRAINT "FK_c369901fa4e5d32ad6bc69a11e0" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "referrals" ADD CONSTRAINT "FK_8944c646adc9219296927ba7efe" FOREIGN KEY ("invitee_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "referrals" ADD CONSTRAINT "FK_4027e13ff4ec739b20403d1762b" FOREIGN KEY ("inviter_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "referrals"`);
    await q.query(`DROP TABLE "referral_codes"`);
  }
}
