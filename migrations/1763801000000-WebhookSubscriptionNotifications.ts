import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A webhook endpoint registered, deleted or re-pointed sends `NOTIFY account_changes, '<user id>'` on commit (like
 * AccountChangeNotifications): instances keep what each account subscribed to in memory, and drop it when told.
 */
export class WebhookSubscriptionNotifications1763801000000 implements MigrationInterface {
  name = 'WebhookSubscriptionNotifications1763801000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_webhook_endpoint_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          PERFORM pg_notify('account_changes', OLD.user_id::text);
        END IF;
        IF TG_OP = 'INSERT' OR NEW.user_id <> OLD.user_id THEN
          PERFORM pg_notify('account_changes', NEW.user_id::text);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(
      `CREATE TRIGGER webhook_endpoints_changed AFTER INSERT OR DELETE OR UPDATE OF events, user_id ON webhook_endpoints
       FOR EACH ROW EXECUTE FUNCTION notify_webhook_endpoint_change()`,
    );
    await q.query(
      `CREATE TRIGGER webhook_endpoints_truncated AFTER TRUNCATE ON webhook_endpoints FOR EACH STATEMENT EXECUTE FUNCTION notify_all_accounts_changed()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER webhook_endpoints_truncated ON webhook_endpoints`);
    await q.query(`DROP TRIGGER webhook_endpoints_changed ON webhook_endpoints`);
    await q.query(`DROP FUNCTION notify_webhook_endpoint_change()`);
  }
}
