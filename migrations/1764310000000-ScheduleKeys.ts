import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A schedule remembers the API key it was created with: each run is a request of that key (its budget, model list
 * and expiry apply) and the schedule is deleted with the key. Schedules created before (by a web session or by a
 * key, not recorded) keep running as the account.
 */
export class ScheduleKeys1764310000000 implements MigrationInterface {
  name = 'ScheduleKeys1764310000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE schedules ADD COLUMN api_key_id integer`);
    await q.query(
      `ALTER TABLE schedules ADD CONSTRAINT "FK_e19038c94fc33c8fe870455a06d" FOREIGN KEY (api_key_id) REFERENCES api_keys(id) ON DELETE CASCADE`,
    );
    await q.query(`CREATE INDEX "IDX_e19038c94fc33c8fe870455a06" ON schedules (api_key_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_e19038c94fc33c8fe870455a06"`);
    await q.query(`ALTER TABLE schedules DROP CONSTRAINT "FK_e19038c94fc33c8fe870455a06d"`);
    await q.query(`ALTER TABLE schedules DROP COLUMN api_key_id`);
  }
}
