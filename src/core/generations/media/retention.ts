import { DataSource } from 'typeorm';
import { ResultStorage } from '../../media/storage';

export interface RetentionOptions {
  /** Rows selected and marked per statement. */
  batchSize?: number;
  /** File deletions in flight at once (local disk or S3 round trips). */
  concurrency?: number;
  /** Stop starting batches after this long (the rest waits for the next run). */
  budgetMs?: number;
}

/**
 * Deletes result files past their plan's retention; their URLs then answer 410. Selection reads the partial index of
 * rows that still have a file, and each batch is marked deleted in one statement once its files are gone (a file
 * deleted whose row was not marked is deleted again next run: deleting a missing file is a no-op).
 */
export async function deleteExpiredResults(ds: DataSource, storage: ResultStorage, options: RetentionOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 1_000;
  const concurrency = options.concurrency ?? 16;
  const stopAt = Date.now() + (options.budgetMs ?? 5 * 60_000);
  let deleted = 0;
  for (;;) {
    const rows = await ds.query<{ id: number; result_key: string }[]>(
      `SELECT id, result_key FROM generations
        WHERE expires_at < now() AND result_deleted_at IS NULL AND result_key IS NOT NULL
        ORDER BY expires_at LIMIT $1`,
      [batchSize],
    );
    for (let i = 0; i < rows.length; i += concurrency) {
      await Promise.all(rows.slice(i, i + concurrency).map((row) => storage.delete(row.result_key)));
    }
    if (rows.length > 0) {
      await ds.query('UPDATE generations SET result_deleted_at = now() WHERE id = ANY($1::int[]) AND result_deleted_at IS NULL', [
        rows.map((r) => r.id),
      ]);
    }
    deleted += rows.length;
    if (rows.length < batchSize || Date.now() >= stopAt) return deleted;
  }
}
