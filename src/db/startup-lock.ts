import { DataSource } from 'typeorm';

/** One key for every process of this service on a database: schema and job-queue setup run one at a time. */
const STARTUP_LOCK_KEY = 764_023_001;

/**
 * Runs `setup` holding a session-level PostgreSQL advisory lock. Instances started at the same moment on a fresh
 * database would otherwise run the same migrations and create the same pg-boss queues at once (deadlocks, or
 * "already exists" failures); under the lock the second finds the work done.
 */
export async function withStartupLock<T>(ds: DataSource, setup: () => Promise<T>): Promise<T> {
  const holder = ds.createQueryRunner();
  await holder.connect();
  try {
    await holder.query('SELECT pg_advisory_lock($1)', [STARTUP_LOCK_KEY]);
    try {
      return await setup();
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [STARTUP_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await holder.release();
  }
}

/** Applies pending migrations under the startup lock; returns their names. */
export async function migrateUnderLock(ds: DataSource): Promise<string[]> {
  const applied = await withStartupLock(ds, () => ds.runMigrations({ transaction: 'each' }));
  return applied.map((m) => m.name);
}
