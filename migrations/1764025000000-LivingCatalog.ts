import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The catalog's state that changes without a release: the operator's overrides (`catalog:set`) and what each
 * vendor's model list said at the last check (`catalog:check`, daily job). Any change to either table sends
 * `NOTIFY catalog_changes` when its transaction commits, whoever writes it; each instance listens (on the account
 * change feed's connection) and reloads both tables, so every instance serves the same catalog at once.
 */
export class LivingCatalog1764025000000 implements MigrationInterface {
  name = 'LivingCatalog1764025000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog_overrides (
        slug text PRIMARY KEY,
        replacement text,
        shutdown_at date,
        enabled boolean,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE catalog_vendor_status (
        slug text PRIMARY KEY,
        provider text NOT NULL,
        upstream_id text NOT NULL,
        status text NOT NULL,
        shutdown_at date,
        checked_at timestamptz NOT NULL,
        CONSTRAINT "catalog_vendor_status_status" CHECK ("status" IN ('live', 'deprecated', 'gone', 'unchecked'))
      )`);
    await q.query(`
      CREATE FUNCTION notify_catalog_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('catalog_changes', TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    for (const table of ['catalog_overrides', 'catalog_vendor_status']) {
      await q.query(
        `CREATE TRIGGER ${table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change()`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE catalog_vendor_status`);
    await q.query(`DROP TABLE catalog_overrides`);
    await q.query(`DROP FUNCTION notify_catalog_change()`);
  }
}
