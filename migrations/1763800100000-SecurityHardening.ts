import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Email verification (links and the verified mark), the per-account password lockout, and the used Telegram
 * Login Widget payloads (replay refusal).
 */
export class SecurityHardening1763800100000 implements MigrationInterface {
  name = 'SecurityHardening1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "email_verifications" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "email" text NOT NULL, "token_hash" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_7939cc2e493281f265179fa86ce" UNIQUE ("token_hash"), CONSTRAINT "PK_c1ea2921e767f83cd44c0af203f" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE TABLE "sign_in_lockouts" ("user_id" integer NOT NULL, "failures" integer NOT NULL DEFAULT '0', "window_started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "locked_until" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_d19b3ae5cee6fbe729f53ce8fbc" PRIMARY KEY ("user_id"))`,
    );
    await q.query(
      `CREATE TABLE "used_login_widgets" ("hash" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_a4e65b6211f203597546aa5805d" PRIMARY KEY ("hash"))`,
    );
    await q.query(`CREATE INDEX "used_login_widgets_expires_idx" ON "used_login_widgets" ("expires_at")`);
    await q.query(`ALTER TABLE "users" ADD "email_verified_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(
      `ALTER TABLE "email_verifications" ADD CONSTRAINT "FK_c4f1838323ae1dff5aa00148915" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "sign_in_lockouts" ADD CONSTRAINT "FK_d19b3ae5cee6fbe729f53ce8fbc" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Emails that came from an identity provider were verified by it.
    await q.query(`UPDATE "users" SET "email_verified_at" = "created_at" WHERE "email" IS NOT NULL AND "idp_subject" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "sign_in_lockouts" DROP CONSTRAINT "FK_d19b3ae5cee6fbe729f53ce8fbc"`);
    await q.query(`ALTER TABLE "email_verifications" DROP CONSTRAINT "FK_c4f1838323ae1dff5aa00148915"`);
    await q.query(`ALTER TABLE "users" DROP COLUMN "email_verified_at"`);
    await q.query(`DROP INDEX "public"."used_login_widgets_expires_idx"`);
    await q.query(`DROP TABLE "used_login_widgets"`);
    await q.query(`DROP TABLE "sign_in_lockouts"`);
    await q.query(`DROP TABLE "email_verifications"`);
  }
}
