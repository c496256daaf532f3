import type { DataSource } from 'typeorm';
import { NotFoundError } from '../../accounts/errors';
import type { ByteRange, ResultStorage, StoredObject } from '../../media/storage';
import { GenerationPendingError } from '../errors';

/**
 * A result file by its storage key: `missing` (never ours), `deleted` (past retention), `removed` (its owner deleted
 * it), or the stored object.
 */
export type ResultFile =
  { state: 'missing' } | { state: 'deleted' } | { state: 'removed' } | { state: 'gone' } | { state: 'stored'; object: StoredObject };

/** Result files as `/files/<key>` serves them: the generation row decides whether the key was ever ours. */
export class ResultFiles {
  constructor(
    private readonly ds: DataSource,
    private readonly storage: ResultStorage,
  ) {}

  /** @throws InvalidStorageKeyError for a malformed key, RangeNotSatisfiableError for a range beyond the file */
  async open(key: string, range?: ByteRange): Promise<ResultFile> {
    const rows = await this.ds.query<{ result_deleted_at: Date | null; user_deleted_at: Date | null }[]>(
      'SELECT result_deleted_at, user_deleted_at FROM generations WHERE result_key = $1 LIMIT 1',
      [key],
    );
    if (rows.length === 0) return { state: 'missing' };
    if (rows[0].user_deleted_at) return { state: 'removed' };
    if (rows[0].result_deleted_at) return { state: 'deleted' };
    const object = await this.storage.get(key, range);
    return object ? { state: 'stored', object } : { state: 'gone' };
  }

  /**
   * The owner deletes a finished generation: its result file, text and prompt go at once (its URL answers 410);
   * the row stays with its model, tokens and times, so the request log and the books still add up. Deleting it
   * again changes nothing.
   * @throws NotFoundError (not the caller's), GenerationPendingError (still running)
   */
  async deleteFor(userId: number, id: number): Promise<void> {
    const rows = await this.ds.query<{ status: string; user_deleted_at: Date | null; result_key: string | null }[]>(
      'SELECT status, user_deleted_at, result_key FROM generations WHERE id = $1 AND user_id = $2',
      [id, userId],
    );
    const row = rows[0];
    if (!row) throw new NotFoundError('Generation');
    if (row.user_deleted_at) return;
    if (row.status === 'pending') throw new GenerationPendingError(id);
    const updated = await this.ds.query<unknown[]>(
      `UPDATE generations SET user_deleted_at = now(), result_deleted_at = COALESCE(result_deleted_at, now()),
              result_text = NULL, prompt = NULL, params = '{}'::jsonb
        WHERE id = $1 AND user_id = $2 AND status <> 'pending' AND user_deleted_at IS NULL RETURNING id`,
      [id, userId],
    );
    // Another call deleted it in between: the second look finds it deleted and returns.
    if (updated.length === 0) return this.deleteFor(userId, id);
    if (row.result_key) await this.storage.delete(row.result_key);
  }
}
