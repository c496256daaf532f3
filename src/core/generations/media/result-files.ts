import type { DataSource } from 'typeorm';
import type { ByteRange, ResultStorage, StoredObject } from '../../media/storage';

/** A result file by its storage key: `missing` (never ours), `deleted` (past retention), or the stored object. */
export type ResultFile = { state: 'missing' } | { state: 'deleted' } | { state: 'gone' } | { state: 'stored'; object: StoredObject };

/** Result files as `/files/<key>` serves them: the generation row decides whether the key was ever ours. */
export class ResultFiles {
  constructor(
    private readonly ds: DataSource,
    private readonly storage: ResultStorage,
  ) {}

  /** @throws InvalidStorageKeyError for a malformed key, RangeNotSatisfiableError for a range beyond the file */
  async open(key: string, range?: ByteRange): Promise<ResultFile> {
    const rows = await this.ds.query<{ result_deleted_at: Date | null }[]>(
      'SELECT result_deleted_at FROM generations WHERE result_key = $1 LIMIT 1',
      [key],
    );
    if (rows.length === 0) return { state: 'missing' };
    if (rows[0].result_deleted_at) return { state: 'deleted' };
    const object = await this.storage.get(key, range);
    return object ? { state: 'stored', object } : { state: 'gone' };
  }
}
