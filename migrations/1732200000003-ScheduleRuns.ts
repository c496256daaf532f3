import { MigrationInterface, QueryRunner } from 'typeorm';

/** Recurring generations remember when they last ran and why a run could not start. */
export class ScheduleRuns1732200000003 implements MigrationInterface {
  name = 'ScheduleRuns1732200000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "schedules" ADD "last_run_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "schedules" ADD "last_error" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "schedules" DROP COLUMN "last_error"`);
    await q.query(`ALTER TABLE "schedules" DROP COLUMN "last_run_at"`);
  }
}
