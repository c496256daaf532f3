import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock

function sqlState(err: unknown): string | undefined {
  if (err instanceof QueryFailedError) return (err.driverError as { code?: string }).code;
  return (err as { code?: string } | undefined)?.code;
}

/**
 * The one way to run work in a transaction: the callback gets the transaction's EntityManager and must use
 * only it. Serialization failures and deadlocks are retried a few times with jitter.
 */
export async function inTransaction<T>(ds: DataSource, work: (em: EntityManager) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ds.transaction(work);
    } catch (err) {
      if (attempt >= attempts || !RETRYABLE.has(sqlState(err) ?? '')) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
    }
  }
}

export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === '23505';
}

/**
 * The server refused the statement (it answered with an error), so nothing of it was committed. A dropped
 * connection or a timeout is not one: the commit may or may not have happened.
 */
export function isRefusedStatement(err: unknown): boolean {
  const e = err instanceof QueryFailedError ? (err.driverError as unknown) : err;
  return typeof (e as { severity?: unknown } | undefined)?.severity === 'string' && typeof sqlState(e) === 'string';
}
