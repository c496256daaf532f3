import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The five plans (operators may edit these rows) and the built-in assistants.
 * Starter limits follow the later changelog (20/h, 150/d), as decisions.md settles.
 */
export class SeedPlansAndAssistants1732200000001 implements MigrationInterface {
  name = 'SeedPlansAndAssistants1732200000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      INSERT INTO plans (slug, name, level, monthly_tokens, rate_limit_hourly, rate_limit_daily, retention_days, price_rub) VALUES
        ('free',  'Starter', 0,     0,  20,  150,    7,    0),
        ('basic', 'Basic',   1,  1000,  30,  200,   30,  490),
        ('pro',   'Pro',     2,  3000,  60,  500,   90,  990),
        ('vip',   'VIP',     3,  8000, 100, 1000,   90, 1990),
        ('elite', 'Elite',   4, 25000,   0,    0, NULL, 4990)
    `);
    await q.query(`
      INSERT INTO assistants (owner_id, name, description, model_slug, system_prompt, is_public, is_system) VALUES
        (NULL, 'General assistant', 'Helpful answers on any topic.', 'gpt-4o-mini',
         'You are a helpful, concise assistant.', true, true),
        (NULL, 'Translator', 'Translates between English, Russian and other languages.', 'gemini-2.5-flash',
         'You translate the user''s text. Detect the source language; answer only with the translation.', true, true),
        (NULL, 'Code helper', 'Explains and writes code.', 'deepseek-chat',
         'You are a senior software engineer. Answer with correct, minimal code and a short explanation.', true, true),
        (NULL, 'Copywriter', 'Writes posts, ads and product descriptions.', 'claude-haiku-4-5',
         'You are a copywriter. Write clear, vivid text in the language of the request.', true, true)
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM assistants WHERE is_system`);
    await q.query(`DELETE FROM plans WHERE slug IN ('free', 'basic', 'pro', 'vip', 'elite')`);
  }
}
