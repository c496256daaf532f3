import path from 'node:path';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config';
import type { Logger } from '../logger';
import { createDataSource } from './data-source';
import { startEmbeddedPostgres } from './embedded';

export interface Database {
  dataSource: DataSource;
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts (or joins) the embedded PostgreSQL under DATA_DIR/pg. */
export async function connectDatabase(config: AppConfig, log: Logger, opts: { poolSize?: number } = {}): Promise<Database> {
  let url = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    const dir = path.join(config.dataDir, 'pg');
    log.debug({ dir }, 'DATABASE_URL is not set: using the embedded PostgreSQL');
    const embedded = await startEmbeddedPostgres(dir, (line) => log.debug({ pg: line }));
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const dataSource = createDataSource(url, { poolSize: opts.poolSize });
  try {
    await dataSource.initialize();
  } catch (err) {
    await stopEmbedded?.();
    throw err;
  }
  return {
    dataSource,
    url,
    embedded: stopEmbedded !== undefined,
    close: async () => {
      await dataSource.destroy().catch(() => undefined);
      await stopEmbedded?.();
    },
  };
}
