import type { AccountChangeFeed } from '../../accounts/account-changes';
import { Queryable } from '../../billing/queryable';

/**
 * An account deleted or blocked (on any instance, by any writer): its answers running here are cut (billed on what
 * they delivered, see AnswersInFlight.cut), so none goes on for free and a blocked account's stream does not outlive
 * its block. Each instance hears the change on the account change feed.
 */
export function cutAnswersOfClosedAccounts(
  changes: AccountChangeFeed,
  chat: { runsFor(userId: number): boolean; cutAccount(userId: number): Promise<number> },
  sql: Queryable,
): void {
  const closed = async (userId: number) => {
    const rows = await sql.query<{ is_blocked: boolean }[]>('SELECT is_blocked FROM users WHERE id = $1', [userId]);
    return rows.length === 0 || rows[0]!.is_blocked;
  };
  changes.subscribe({
    accountChanged: (userId) => {
      if (userId === null || !chat.runsFor(userId)) return;
      void closed(userId)
        .then((cut) => (cut ? chat.cutAccount(userId) : 0))
        .catch(() => undefined);
    },
    feedReset: () => undefined,
  });
}
