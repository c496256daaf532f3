import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What catalog:check needs to retire nothing on missing data: when a vendor's list first left a model out
 * (`missing_since`; it is `gone` only when a check at least 24 hours later misses it too and a direct lookup answers
 * not found), and when a real request was answered "model not found" (`suspect_since`: the admins are told; it
 * retires nothing).
 */
export class CatalogMissedChecks1764390200000 implements MigrationInterface {
  name = 'CatalogMissedChecks1764390200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE catalog_vendor_status ADD missing_since timestamptz, ADD suspect_since timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE catalog_vendor_status DROP COLUMN missing_since, DROP COLUMN suspect_since`);
  }
}
