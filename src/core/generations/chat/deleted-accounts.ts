import type { AccountChangeFeed } from '../../accounts/account-changes';
import { Queryable } from '../../billing/queryable';

/**
 * An account deleted on another instance: its answers running here are cut (billed on what they delivered, see
 * AnswersInFlight.cut), so none goes on for free. Each instance hears the deletion on the account change feed.
 */
export function cutAnswersOfDeletedAccounts(
  changes: AccountChangeFeed,
  chat: { runsFor(userId: number): boolean; cutAccount(userId: number): Promise<number> },
  sql: Queryable,
): void {
  const gone = async (userId: number) => (await sql.query<unknown[]>('SELECT 1 FROM users WHERE id = $1', [userId])).length === 0;
  changes.subscribe({
    accountChanged: (userId) => {
      if (userId === null || !chat.runsFor(userId)) return;
      void gone(userId)
        .then((deleted) => (deleted ? chat.cutAccount(userId) : 0))
        .catch(() => undefined);
    },
    feedReset: () => undefined,
  });
}
