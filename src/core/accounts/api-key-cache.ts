import type { UserEntity } from '../../db/entities';
import type { AccountChangeFeed, AccountChangeListener } from './account-changes';

export interface CachedKey {
  keyId: number;
  /** The owner's row as loaded; shared by every request that hits the entry, so never modified. */
  user: UserEntity;
}

interface Entry extends CachedKey {
  expiresAt: number;
}

export interface ApiKeyCacheOptions {
  /** The safety net: an entry is looked up again after this long, heard of a change or not. */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * Verified API keys (by their hash) with their owner's row, so a request with a known key needs no lookup. Trusted
 * only while the account change feed is live: a change to the key or its owner, on any instance, drops the owner's
 * entries when its NOTIFY arrives; a lost feed drops everything and stops caching until it listens again.
 */
export class ApiKeyCache implements AccountChangeListener {
  private readonly byHash = new Map<string, Entry>();
  private readonly byUser = new Map<number, Set<string>>();
  /** Counts the changes heard: a lookup that started before a change of its account must not be cached after it. */
  private generation = 0;
  /** The generation of each account's last change heard (forgotten in bulk by raising `floor`). */
  private readonly changedAt = new Map<number, number>();
  /** Lookups that started before this generation are not cached at all (a reset, or `changedAt` forgotten). */
  private floor = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly feed: AccountChangeFeed,
    options: ApiKeyCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    feed.subscribe(this);
  }

  get size(): number {
    return this.byHash.size;
  }

  get(hash: string): CachedKey | undefined {
    if (!this.feed.live) return undefined;
    const entry = this.byHash.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    this.remove(hash, entry.user.id);
    return undefined;
  }

  /** Take this before reading the database; hand it to `set` with what was read. */
  mark(): number {
    return this.generation;
  }

  set(hash: string, value: CachedKey, mark: number): void {
    if (!this.feed.live || mark < this.floor || (this.changedAt.get(value.user.id) ?? -1) > mark) return;
    if (this.byHash.size >= this.maxEntries) {
      const oldest = this.byHash.entries().next().value;
      if (oldest) this.remove(oldest[0], oldest[1].user.id);
    }
    this.byHash.set(hash, { ...value, expiresAt: this.now() + this.ttlMs });
    const hashes = this.byUser.get(value.user.id) ?? new Set<string>();
    hashes.add(hash);
    this.byUser.set(value.user.id, hashes);
  }

  accountChanged(userId: number | null): void {
    this.generation++;
    if (userId === null) return this.forgetAll();
    if (this.changedAt.size >= this.maxEntries) {
      this.changedAt.clear();
      this.floor = this.generation;
    }
    this.changedAt.set(userId, this.generation);
    for (const hash of this.byUser.get(userId) ?? []) this.byHash.delete(hash);
    this.byUser.delete(userId);
  }

  feedReset(): void {
    this.generation++;
    this.forgetAll();
  }

  private forgetAll(): void {
    this.floor = this.generation;
    this.changedAt.clear();
    this.byHash.clear();
    this.byUser.clear();
  }

  private remove(hash: string, userId: number): void {
    this.byHash.delete(hash);
    const hashes = this.byUser.get(userId);
    hashes?.delete(hash);
    if (hashes?.size === 0) this.byUser.delete(userId);
  }
}
