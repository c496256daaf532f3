import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each completed generation used at the vendor (`vendor_usage`: input, cached input, cache write, output and
 * reasoning tokens; images; seconds; characters; audio seconds; runs) and what that cost the operator at the vendor's
 * list price (`vendor_cost_usd`). Null on generations from before, and on failed ones (the vendor bills no failure).
 */
export class GenerationVendorCost1764390300000 implements MigrationInterface {
  name = 'GenerationVendorCost1764390300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE generations ADD vendor_usage jsonb, ADD vendor_cost_usd numeric(16,8)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE generations DROP COLUMN vendor_usage, DROP COLUMN vendor_cost_usd`);
  }
}
