import { DataSource } from 'typeorm';
import { ResultStorage } from '../../media/storage';

/** Deletes result files past their plan's retention; their URLs then answer 410. */
export async function deleteExpiredResults(ds: DataSource, storage: ResultStorage, limit = 500): Promise<number> {
  const rows = await ds.query<{ id: number; result_key: string }[]>(
    `SELECT id, result_key FROM generations
      WHERE expires_at < now() AND result_deleted_at IS NULL AND result_key IS NOT NULL
      ORDER BY expires_at LIMIT $1`,
    [limit],
  );
  for (const row of rows) {
    await storage.delete(row.result_key);
    await ds.query('UPDATE generations SET result_deleted_at = now() WHERE id = $1', [row.id]);
  }
  return rows.length;
}
