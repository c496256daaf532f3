import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change to an account's credentials or standing (a user row updated or deleted, an API key deleted or
 * re-pointed) sends `NOTIFY account_changes, '<user id>'` when its transaction commits, whoever writes it: the
 * service, the CLI, an operator's SQL. Each instance listens and drops what it cached of that account, so a
 * revoked key or a blocked user stops at once on every instance. A TRUNCATE sends `*` (drop everything).
 */
export class AccountChangeNotifications1763800500000 implements MigrationInterface {
  name = 'AccountChangeNotifications1763800500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('account_changes', OLD.id::text);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('account_changes', OLD.user_id::text);
        IF TG_OP = 'UPDATE' AND NEW.user_id <> OLD.user_id THEN
          PERFORM pg_notify('account_changes', NEW.user_id::text);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION notify_all_accounts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('account_changes', '*');
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER users_changed AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION notify_user_change()`);
    await q.query(
      `CREATE TRIGGER users_updated AFTER UPDATE ON users FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION notify_user_change()`,
    );
    await q.query(
      `CREATE TRIGGER api_keys_changed AFTER DELETE OR UPDATE OF key_hash, user_id ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_api_key_change()`,
    );
    await q.query(
      `CREATE TRIGGER users_truncated AFTER TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION notify_all_accounts_changed()`,
    );
    await q.query(
      `CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_all_accounts_changed()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER api_keys_truncated ON api_keys`);
    await q.query(`DROP TRIGGER users_truncated ON users`);
    await q.query(`DROP TRIGGER api_keys_changed ON api_keys`);
    await q.query(`DROP TRIGGER users_updated ON users`);
    await q.query(`DROP TRIGGER users_changed ON users`);
    await q.query(`DROP FUNCTION notify_all_accounts_changed()`);
    await q.query(`DROP FUNCTION notify_api_key_change()`);
    await q.query(`DROP FUNCTION notify_user_change()`);
  }
}
