import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request log's two additions: `refused_requests`, the calls refused before anything ran (403, 402, 429), per
 * account; and `generations.user_deleted_at`, set when the owner deletes a result (its file, text and prompt go,
 * the row stays for the books).
 */
export class RefusedRequests1764360000000 implements MigrationInterface {
  name = 'RefusedRequests1764360000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "refused_requests" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "door" text NOT NULL, "api_key_id" integer, "route" text NOT NULL, "model_slug" text, "status" integer NOT NULL, "error" text NOT NULL, "message" text NOT NULL, "count" integer NOT NULL DEFAULT '1', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_bb75bf15bbf2134f549e831eb97" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "refused_requests_user_idx" ON "refused_requests" ("user_id", "id")`);
    await q.query(
      `ALTER TABLE "refused_requests" ADD CONSTRAINT "FK_775903d1bf549e97d720846c22e" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(`ALTER TABLE "generations" ADD "user_deleted_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generations" DROP COLUMN "user_deleted_at"`);
    await q.query(`DROP TABLE "refused_requests"`);
  }
}
