import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The bot's one-step commands (`/image <prompt>` and the like): the model and options each category last ran with
 * (`media_presets`, by category), and the price up to which a run starts without asking (`confirm_above`, in
 * tokens; 0 asks every time).
 */
export class BotQuickRuns1764380000000 implements MigrationInterface {
  name = 'BotQuickRuns1764380000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "user_settings" ADD "media_presets" jsonb NOT NULL DEFAULT '{}'`);
    await q.query(`ALTER TABLE "user_settings" ADD "confirm_above" integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "user_settings" DROP COLUMN "confirm_above"`);
    await q.query(`ALTER TABLE "user_settings" DROP COLUMN "media_presets"`);
  }
}
