import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The origin of the request that created a generation (`http://127.0.0.1:3000`), so that without PUBLIC_URL its
 * result link is the same in the API answer, the webhook event, the bot and every later read. Null for
 * generations no request created (the bot, schedules) and for older rows: they use the listen address.
 */
export class GenerationLinkOrigin1764028100000 implements MigrationInterface {
  name = 'GenerationLinkOrigin1764028100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generations" ADD "link_origin" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generations" DROP COLUMN "link_origin"`);
  }
}
