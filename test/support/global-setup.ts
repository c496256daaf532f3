import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/db/embedded';

/** Tests use DATABASE_URL when set; otherwise one embedded PostgreSQL serves the whole run. */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) return;
  const db = await startEmbeddedPostgres(path.join(__dirname, '../../data/test-pg'));
  process.env.DATABASE_URL = db.url;
  (globalThis as { __embeddedDb?: { stop(): Promise<void> } }).__embeddedDb = db;
}
