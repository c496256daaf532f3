import type { AccountChangeFeed, AccountChangeListener } from './account-changes';

export interface AccountCacheOptions {
  /** The safety net: an entry is read again after this long, heard of a change or not. */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  ownerId: number;
  expiresAt: number;
}

/**
 * Values that belong to an account (a verified API key with its owner, an account's webhook subscriptions), kept
 * in memory and trusted only while the account change feed is live: a change of the account, on any instance,
 * drops its entries when its NOTIFY arrives; a lost feed drops everything and stops caching until it listens
 * again. A value read from the database is stored with the `mark()` taken before the read, and dropped instead
 * if its account changed in between.
 */
export class AccountCache<V> implements AccountChangeListener {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly byOwner = new Map<number, Set<string>>();
  /** Counts the changes heard. */
  private generation = 0;
  /** The generation of each account's last change heard (forgotten in bulk by raising `floor`). */
  private readonly changedAt = new Map<number, number>();
  /** Reads that started before this generation are not stored at all (a reset, or `changedAt` forgotten). */
  private floor = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly feed: AccountChangeFeed,
    options: AccountCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    feed.subscribe(this);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    if (!this.feed.live) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.value;
    this.remove(key, entry.ownerId);
    return undefined;
  }

  /** Take this before reading the database; hand it to `set` with what was read. */
  mark(): number {
    return this.generation;
  }

  set(key: string, ownerId: number, value: V, mark: number): void {
    if (!this.feed.live || mark < this.floor || (this.changedAt.get(ownerId) ?? -1) > mark) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.entries().next().value;
      if (oldest) this.remove(oldest[0], oldest[1].ownerId);
    }
    this.entries.set(key, { value, ownerId, expiresAt: this.now() + this.ttlMs });
    const keys = this.byOwner.get(ownerId) ?? new Set<string>();
    keys.add(key);
    this.byOwner.set(ownerId, keys);
  }

  accountChanged(userId: number | null): void {
    this.generation++;
    if (userId === null) return this.forgetAll();
    if (this.changedAt.size >= this.maxEntries) {
      this.changedAt.clear();
      this.floor = this.generation;
    }
    this.changedAt.set(userId, this.generation);
    for (const key of this.byOwner.get(userId) ?? []) this.entries.delete(key);
    this.byOwner.delete(userId);
  }

  feedReset(): void {
    this.generation++;
    this.forgetAll();
  }

  private forgetAll(): void {
    this.floor = this.generation;
    this.changedAt.clear();
    this.entries.clear();
    this.byOwner.clear();
  }

  private remove(key: string, ownerId: number): void {
    this.entries.delete(key);
    const keys = this.byOwner.get(ownerId);
    keys?.delete(key);
    if (keys?.size === 0) this.byOwner.delete(ownerId);
  }
}
