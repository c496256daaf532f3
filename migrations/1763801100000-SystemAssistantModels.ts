import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The built-in Translator was seeded with `gemini-2.5-flash`, which the 2026-11 catalog replaced by
 * `gemini-3.5-flash` (same plan, Starter). Only the untouched seed row moves; an operator's edit stays.
 */
export class SystemAssistantModels1763801100000 implements MigrationInterface {
  name = 'SystemAssistantModels1763801100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE assistants SET model_slug = 'gemini-3.5-flash' WHERE is_system AND model_slug = 'gemini-2.5-flash'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE assistants SET model_slug = 'gemini-2.5-flash' WHERE is_system AND name = 'Translator' AND model_slug = 'gemini-3.5-flash'`,
    );
  }
}
