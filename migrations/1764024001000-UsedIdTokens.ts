import { MigrationInterface, QueryRunner } from 'typeorm';

/** Identity-provider ID tokens already used to sign in, so that every instance refuses a second use. */
export class UsedIdTokens1764024001000 implements MigrationInterface {
  name = 'UsedIdTokens1764024001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "used_id_tokens" ("hash" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_used_id_tokens" PRIMARY KEY ("hash"))`,
    );
    await q.query(`CREATE INDEX "used_id_tokens_expires_idx" ON "used_id_tokens" ("expires_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "used_id_tokens"`);
  }
}
