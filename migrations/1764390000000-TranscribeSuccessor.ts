import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * gpt-transcribe takes whisper-1's place as the default speech-to-text model (whisper-1 shuts down on 2027-02-26 and
 * is now a retired slug served by it). An API key allowed whisper-1 is also allowed its successor, as the catalog
 * refresh of 2026-11-27 did for the slugs it retired.
 */
export class TranscribeSuccessor1764390000000 implements MigrationInterface {
  name = 'TranscribeSuccessor1764390000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE api_keys SET models = array_append(models, 'gpt-transcribe') WHERE 'whisper-1' = ANY(models) AND NOT ('gpt-transcribe' = ANY(models))`,
    );
  }

  async down(): Promise<void> {
    // The added slug is harmless after a rollback: the older catalog simply does not know it.
  }
}
