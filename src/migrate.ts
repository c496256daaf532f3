import 'reflect-metadata';
import { loadConfig } from './config';
import { connectDatabase } from './db/connect';
import { migrateUnderLock } from './db/startup-lock';
import { createLogger } from './logger';

/** `npm run migrate`: applies pending migrations and exits. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const db = await connectDatabase(config, log, { poolSize: 2 });
  try {
    const applied = await migrateUnderLock(db.dataSource);
    log.info({ applied }, applied.length ? 'migrations applied' : 'schema is up to date');
  } finally {
    await db.close();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`migration failed: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
