import { MigrationInterface, QueryRunner } from 'typeorm';

/** The slugs the 2026-11-27 catalog refresh retired, with the model that now serves each (models.ts RETIRED_ALIASES). */
const MOVED: ReadonlyArray<[retired: string, replacement: string]> = [
  ['gpt-4o-mini', 'gpt-6-luna'],
  ['gpt-4.1-nano', 'gpt-5.6-luna'],
  ['gpt-4o', 'gpt-6-luna'],
  ['gpt-4.1', 'gpt-6-luna'],
  ['o4-mini', 'gpt-5.6-terra'],
  ['gpt-5', 'gpt-6.1-sol'],
  ['gpt-5-mini', 'gpt-6.1-terra'],
  ['deepseek-chat', 'deepseek-v4-flash'],
  ['deepseek-reasoner', 'deepseek-v4-flash'],
];

/**
 * The built-in General assistant was seeded with `gpt-4o-mini` and the Code helper with `deepseek-chat`, which the
 * refresh retired: the untouched seed rows move to their replacements (an operator's edit stays). A user's saved chat
 * model moves too (a retired slug is no catalog model, so chat would silently fall back to the plan default), and an
 * API key allowed a retired slug is also allowed its replacement. A voice-answer model picked among the retired
 * OpenAI speech models is cleared: their successors speak WAV, which Telegram shows as a file, so the plan's default
 * (a model Telegram plays) takes over.
 */
export class CatalogRefreshModels1764230000000 implements MigrationInterface {
  name = 'CatalogRefreshModels1764230000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE assistants SET model_slug = 'gpt-6-luna' WHERE is_system AND model_slug = 'gpt-4o-mini'`);
    await q.query(`UPDATE assistants SET model_slug = 'deepseek-v4-flash' WHERE is_system AND model_slug = 'deepseek-chat'`);
    for (const [retired, replacement] of MOVED) {
      await q.query(`UPDATE user_settings SET chat_model = $2 WHERE chat_model = $1`, [retired, replacement]);
      await q.query(`UPDATE api_keys SET models = array_append(models, $2::text) WHERE $1 = ANY(models) AND NOT ($2 = ANY(models))`, [
        retired,
        replacement,
      ]);
    }
    await q.query(`UPDATE user_settings SET tts_model = NULL WHERE tts_model IN ('tts-1', 'gpt-4o-mini-tts')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE assistants SET model_slug = 'gpt-4o-mini' WHERE is_system AND name = 'General assistant' AND model_slug = 'gpt-6-luna'`,
    );
    await q.query(
      `UPDATE assistants SET model_slug = 'deepseek-chat' WHERE is_system AND name = 'Code helper' AND model_slug = 'deepseek-v4-flash'`,
    );
  }
}
