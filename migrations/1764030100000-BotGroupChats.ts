import { MigrationInterface, QueryRunner } from 'typeorm';

/** Groups the bot is in, by Telegram chat id: whether a group admin switched it off there (/off, /on). */
export class BotGroupChats1764030100000 implements MigrationInterface {
  name = 'BotGroupChats1764030100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "bot_group_chats" ("chat_id" bigint NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "changed_by" bigint, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_bot_group_chats" PRIMARY KEY ("chat_id"))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "bot_group_chats"`);
  }
}
