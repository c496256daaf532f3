import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The bot's voice answers: whether a chat answer is also spoken back (`voice_answers`), and with which speech
 * model (`tts_model`; null: the plan's default speech model).
 */
export class VoiceAnswers1764030000000 implements MigrationInterface {
  name = 'VoiceAnswers1764030000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "user_settings" ADD "voice_answers" boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE "user_settings" ADD "tts_model" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "user_settings" DROP COLUMN "tts_model"`);
    await q.query(`ALTER TABLE "user_settings" DROP COLUMN "voice_answers"`);
  }
}
