/** Told when an account's credentials or standing changed, on any instance (see AccountChangeFeed). */
export interface AccountChangeListener {
  /** The account `userId` changed; `null`: any account may have changed. */
  accountChanged(userId: number | null): void;
  /** Changes may have been missed (the feed lost its connection, or came back): forget everything. */
  feedReset(): void;
}

/**
 * Account changes from every writer and every instance (PostgreSQL triggers + NOTIFY, see the migration
 * AccountChangeNotifications). What an instance caches about accounts is only trusted while the feed is live.
 *
 * The bound this gives: a change takes effect on an instance when its listener delivers the NOTIFY, which
 * PostgreSQL signals to every listening backend at the commit (well under a millisecond on a healthy machine).
 * The instance that made a change through the service answers only after it heard the change itself
 * (`expect`), so it never serves the old state after its answer; other instances follow on their own
 * connections, unordered with that answer. Each cached entry also expires after its TTL whatever happens.
 */
export interface AccountChangeFeed {
  /** True while connected and listening: changes made now will be heard. */
  readonly live: boolean;
  subscribe(listener: AccountChangeListener): void;
  /**
   * A promise that resolves when this process hears the next change of `userId` (or after `timeoutMs`, or at once
   * when the feed is not live). Take it before the write and await it after, so the caller's answer leaves only
   * once the change has gone out to every listening instance.
   */
  expect(userId: number, timeoutMs?: number): Promise<void>;
}
