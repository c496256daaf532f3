import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys with their own limits (token budget per day, month or in total, a model allowlist, an expiry) and the
 * counter the token hold checks in its own statement; generations and holds remember the key that made them (the
 * request log, usage per key, and giving unused tokens back to the key's counter at settlement).
 *
 * Also for the account pages: refresh tokens keep the browser's user agent (the sessions list), and ledger rows
 * outlive a deleted account with their user id cleared (the books stay whole, anonymised).
 */
export class ApiKeyLimits1764027000000 implements MigrationInterface {
  name = 'ApiKeyLimits1764027000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys
        ADD COLUMN token_budget integer,
        ADD COLUMN budget_period text NOT NULL DEFAULT 'month',
        ADD COLUMN models text[],
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN spent integer NOT NULL DEFAULT 0,
        ADD COLUMN spent_period_start timestamptz`);
    await q.query(
      `ALTER TABLE api_keys ADD CONSTRAINT api_keys_budget CHECK ("token_budget" IS NULL OR "token_budget" >= 0) ` +
        `, ADD CONSTRAINT api_keys_budget_period CHECK ("budget_period" IN ('day', 'month', 'total'))`,
    );
    // The start (UTC) of the budget period that contains now(); 'total' never rolls over.
    await q.query(`
      CREATE FUNCTION api_key_period_start(period text) RETURNS timestamptz LANGUAGE sql STABLE AS $$
        SELECT CASE period
          WHEN 'day' THEN date_trunc('day', now(), 'UTC')
          WHEN 'month' THEN date_trunc('month', now(), 'UTC')
          ELSE 'epoch'::timestamptz
        END
      $$`);
    await q.query(`ALTER TABLE token_reservations ADD COLUMN api_key_id integer`);
    await q.query(`ALTER TABLE generations ADD COLUMN api_key_id integer`);
    await q.query(`CREATE INDEX generations_api_key_idx ON generations (api_key_id, created_at) WHERE api_key_id IS NOT NULL`);
    // A changed limit must reach every instance's key cache, like a changed hash or owner.
    await q.query(`DROP TRIGGER api_keys_changed ON api_keys`);
    await q.query(
      `CREATE TRIGGER api_keys_changed AFTER DELETE OR UPDATE OF key_hash, user_id, token_budget, budget_period, models, expires_at
         ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_api_key_change()`,
    );
    await q.query(`ALTER TABLE refresh_tokens ADD COLUMN user_agent text`);
    await q.query(`ALTER TABLE ledger_entries ALTER COLUMN user_id DROP NOT NULL`);
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT "FK_8417854ce8bdd0d651c35e1c7ce"`);
    await q.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT "FK_8417854ce8bdd0d651c35e1c7ce" FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE SET NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM ledger_entries WHERE user_id IS NULL`);
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT "FK_8417854ce8bdd0d651c35e1c7ce"`);
    await q.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT "FK_8417854ce8bdd0d651c35e1c7ce" FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
    );
    await q.query(`ALTER TABLE ledger_entries ALTER COLUMN user_id SET NOT NULL`);
    await q.query(`ALTER TABLE refresh_tokens DROP COLUMN user_agent`);
    await q.query(`DROP TRIGGER api_keys_changed ON api_keys`);
    await q.query(
      `CREATE TRIGGER api_keys_changed AFTER DELETE OR UPDATE OF key_hash, user_id ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_api_key_change()`,
    );
    await q.query(`DROP INDEX generations_api_key_idx`);
    await q.query(`ALTER TABLE generations DROP COLUMN api_key_id`);
    await q.query(`ALTER TABLE token_reservations DROP COLUMN api_key_id`);
    await q.query(`DROP FUNCTION api_key_period_start(text)`);
    await q.query(`ALTER TABLE api_keys DROP CONSTRAINT api_keys_budget, DROP CONSTRAINT api_keys_budget_period`);
    await q.query(`
      ALTER TABLE api_keys DROP COLUMN token_budget, DROP COLUMN budget_period, DROP COLUMN models,
        DROP COLUMN expires_at, DROP COLUMN spent, DROP COLUMN spent_period_start`);
  }
}
