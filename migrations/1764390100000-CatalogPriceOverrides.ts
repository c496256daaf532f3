import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's price overrides (`catalog:price`): a model's rates scaled by `factor`, or a per-request model's price
 * set in `tokens`, with the reason. They win over the price rule and the catalog's own overrides. A change notifies
 * `catalog_changes` like the catalog's other tables, so every instance reloads it at once.
 */
export class CatalogPriceOverrides1764390100000 implements MigrationInterface {
  name = 'CatalogPriceOverrides1764390100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog_price_overrides (
        slug text PRIMARY KEY,
        factor double precision,
        tokens integer,
        reason text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "catalog_price_overrides_one" CHECK ((factor IS NULL) <> (tokens IS NULL)),
        CONSTRAINT "catalog_price_overrides_factor" CHECK (factor IS NULL OR (factor > 0 AND factor <= 100)),
        CONSTRAINT "catalog_price_overrides_tokens" CHECK (tokens IS NULL OR tokens >= 1)
      )`);
    await q.query(
      `CREATE TRIGGER catalog_price_overrides_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON catalog_price_overrides FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE catalog_price_overrides`);
  }
}
