import { MigrationInterface, QueryRunner } from 'typeorm';

/** What the bot does with a voice message: `transcribe` (the text comes back) or `answer` (the chat model replies to it). */
export class VoiceMode1763800900000 implements MigrationInterface {
  name = 'VoiceMode1763800900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "user_settings" ADD "voice_mode" text NOT NULL DEFAULT 'transcribe'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "user_settings" DROP COLUMN "voice_mode"`);
  }
}
