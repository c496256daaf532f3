import { DataSource, EntityManager } from 'typeorm';
import { inTransaction } from '../../db/transaction';

/**
 * Runs `create` in a transaction that first locks the account's row, so concurrent creations of one account
 * queue up and each sees the count the previous one left: a per-account cap holds exactly under any
 * parallelism. FOR NO KEY UPDATE does not block inserts elsewhere that merely reference the user.
 */
export async function withAccountLock<T>(ds: DataSource, userId: number, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return inTransaction(ds, async (em) => {
    await em.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
    return work(em);
  });
}
