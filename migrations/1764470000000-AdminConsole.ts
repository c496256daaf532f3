import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's console: admins (`users.is_admin`), when and why an account was blocked (`is_blocked` stays the
 * switch), and the append-only `admin_audit_log`. A trigger refuses UPDATE and DELETE on the log; the one update it
 * lets through is the actor's foreign key set to null when that account is deleted.
 */
export class AdminConsole1764470000000 implements MigrationInterface {
  name = 'AdminConsole1764470000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "admin_audit_log" ("id" BIGSERIAL NOT NULL, "actor_user_id" integer, "actor_label" text NOT NULL, "door" text NOT NULL, ` +
        `"action" text NOT NULL, "target_type" text NOT NULL, "target_id" text NOT NULL, "before" jsonb, "after" jsonb, ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "admin_audit_log_door" CHECK ("door" IN ('web', 'bot', 'cli')), ` +
        `CONSTRAINT "PK_9425be48a9c753f5753017c61b2" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "admin_audit_log_actor_idx" ON "admin_audit_log" ("actor_user_id", "id")`);
    await q.query(`CREATE INDEX "admin_audit_log_target_idx" ON "admin_audit_log" ("target_type", "target_id", "id")`);
    await q.query(`CREATE INDEX "admin_audit_log_created_idx" ON "admin_audit_log" ("created_at", "id")`);
    await q.query(`ALTER TABLE "users" ADD "blocked_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "users" ADD "blocked_reason" text`);
    await q.query(`ALTER TABLE "users" ADD "is_admin" boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE "users" SET "blocked_at" = "updated_at" WHERE "is_blocked"`);
    await q.query(
      `ALTER TABLE "admin_audit_log" ADD CONSTRAINT "FK_5dcb6ee3d3ffcd52c72323f21da" FOREIGN KEY ("actor_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await q.query(`
      CREATE FUNCTION admin_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND NEW.actor_user_id IS NULL AND OLD.actor_user_id IS NOT NULL
           AND (NEW.id, NEW.actor_label, NEW.door, NEW.action, NEW.target_type, NEW.target_id, NEW.before, NEW.after, NEW.created_at)
               IS NOT DISTINCT FROM
               (OLD.id, OLD.actor_label, OLD.door, OLD.action, OLD.target_type, OLD.target_id, OLD.before, OLD.after, OLD.created_at) THEN
          RETURN NEW;
        END IF;
        RAISE EXCEPTION 'admin_audit_log is append-only (% refused)', TG_OP;
      END $$`);
    await q.query(
      `CREATE TRIGGER admin_audit_log_append_only BEFORE UPDATE OR DELETE ON "admin_audit_log" FOR EACH ROW EXECUTE FUNCTION admin_audit_log_append_only()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "admin_audit_log"`);
    await q.query(`DROP FUNCTION admin_audit_log_append_only()`);
    await q.query(`ALTER TABLE "users" DROP COLUMN "is_admin"`);
    await q.query(`ALTER TABLE "users" DROP COLUMN "blocked_reason"`);
    await q.query(`ALTER TABLE "users" DROP COLUMN "blocked_at"`);
  }
}
