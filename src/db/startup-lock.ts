import { DataSource, QueryRunner } from 'typeorm';

/** One key for every process of this service on a database: schema and job-queue setup run one at a time. */
const STARTUP_LOCK_KEY = 764_023_001;
const LOCK_RETRY_MS = 200;

/**
 * Runs `setup` holding a session-level PostgreSQL advisory lock. Instances started at the same moment on a fresh
 * database would otherwise run the same migrations and create the same pg-boss queues at once (deadlocks, or
 * "already exists" failures); under the lock the second finds the work done.
 */
export async function withStartupLock<T>(ds: DataSource, setup: () => Promise<T>): Promise<T> {
  const holder = ds.createQueryRunner();
  await holder.connect();
  try {
    await takeLock(holder);
    try {
      return await setup();
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [STARTUP_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await holder.release();
  }
}

/**
 * Takes the lock by polling rather than by waiting inside `pg_advisory_lock`: a statement that waits holds a snapshot,
 * and a migration building an index CONCURRENTLY waits for every older snapshot to end, so the holder and a waiting
 * instance would wait on each other for ever. Between tries a waiting instance holds no snapshot.
 */
async function takeLock(holder: QueryRunner): Promise<void> {
  for (;;) {
    const [row] = (await holder.query('SELECT pg_try_advisory_lock($1) AS locked', [STARTUP_LOCK_KEY])) as { locked: boolean }[];
    if (row?.locked) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

/** Applies pending migrations under the startup lock; returns their names. */
export async function migrateUnderLock(ds: DataSource): Promise<string[]> {
  const applied = await withStartupLock(ds, () => ds.runMigrations({ transaction: 'each' }));
  return applied.map((m) => m.name);
}
