import { MigrationInterface, QueryRunner } from 'typeorm';

const hashOf = (text: string) => `encode(sha256(convert_to(${text}, 'UTF8')), 'hex')`;

/**
 * The password lockout counts per submitted identifier (the SHA-256 of `email:<email>` or `phone:<phone>`),
 * whether an account has it or not, instead of per account: an unknown email locks like a known one. Running
 * locks carry over to each identifier of their account.
 */
export class SignInLockoutPerIdentifier1764024000000 implements MigrationInterface {
  name = 'SignInLockoutPerIdentifier1764024000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "sign_in_lockouts" RENAME TO "sign_in_lockouts_by_account"`);
    await q.query(
      `CREATE TABLE "sign_in_lockouts" ("identifier_hash" text NOT NULL, "failures" integer NOT NULL DEFAULT '0', "window_started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "locked_until" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_sign_in_lockouts" PRIMARY KEY ("identifier_hash"))`,
    );
    await q.query(`CREATE INDEX "sign_in_lockouts_window_idx" ON "sign_in_lockouts" ("window_started_at")`);
    await q.query(
      `INSERT INTO "sign_in_lockouts" (identifier_hash, failures, window_started_at, locked_until)
       SELECT ${hashOf('i.identifier')}, l.failures, l.window_started_at, l.locked_until
         FROM "sign_in_lockouts_by_account" l JOIN users u ON u.id = l.user_id
        CROSS JOIN LATERAL (VALUES ('email:' || u.email), ('phone:' || u.phone)) AS i(identifier)
        WHERE i.identifier IS NOT NULL
       ON CONFLICT DO NOTHING`,
    );
    await q.query(`DROP TABLE "sign_in_lockouts_by_account"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "sign_in_lockouts" RENAME TO "sign_in_lockouts_by_identifier"`);
    await q.query(
      `CREATE TABLE "sign_in_lockouts" ("user_id" integer NOT NULL, "failures" integer NOT NULL DEFAULT '0', "window_started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "locked_until" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_d19b3ae5cee6fbe729f53ce8fbc" PRIMARY KEY ("user_id"))`,
    );
    await q.query(
      `INSERT INTO "sign_in_lockouts" (user_id, failures, window_started_at, locked_until)
       SELECT u.id, max(l.failures), min(l.window_started_at), max(l.locked_until)
         FROM users u JOIN "sign_in_lockouts_by_identifier" l
           ON l.identifier_hash IN (${hashOf(`'email:' || u.email`)}, ${hashOf(`'phone:' || u.phone`)})
        GROUP BY u.id`,
    );
    await q.query(`DROP TABLE "sign_in_lockouts_by_identifier"`);
    await q.query(
      `ALTER TABLE "sign_in_lockouts" ADD CONSTRAINT "FK_d19b3ae5cee6fbe729f53ce8fbc" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }
}
