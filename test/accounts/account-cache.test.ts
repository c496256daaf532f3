import type { AccountChangeFeed, AccountChangeListener } from '../../src/core/accounts/account-changes';
import { AccountCache } from '../../src/core/accounts/account-cache';

/** The feed as the cache sees it; the PostgreSQL one is exercised by test/api/key-revocation.test.ts. */
class ManualFeed implements AccountChangeFeed {
  live = true;
  listener?: AccountChangeListener;
  subscribe(listener: AccountChangeListener): void {
    this.listener = listener;
  }
  async expect(): Promise<void> {}
}

function setup() {
  const feed = new ManualFeed();
  let now = 1_000;
  const cache = new AccountCache<number>(feed, { ttlMs: 30_000, maxEntries: 3, now: () => now });
  return { feed, cache, advance: (ms: number) => (now += ms) };
}

test('an entry lives until its TTL, and a change of its owner drops it (and only its owner)', () => {
  const { feed, cache, advance } = setup();
  cache.set('h1', 7, 1, cache.mark());
  cache.set('h2', 7, 2, cache.mark());
  cache.set('h3', 8, 3, cache.mark());
  advance(29_999);
  expect(cache.get('h1')).toBe(1);
  feed.listener!.accountChanged(7);
  expect(cache.get('h1')).toBeUndefined();
  expect(cache.get('h2')).toBeUndefined();
  expect(cache.get('h3')).toBe(3);
  advance(1);
  expect(cache.get('h3')).toBeUndefined();
});

test('a lookup that started before a change is not cached after it', () => {
  const { feed, cache } = setup();
  const mark = cache.mark();
  // The key is deleted while the SELECT is in flight; its NOTIFY arrives before the (stale) row does.
  feed.listener!.accountChanged(7);
  cache.set('h1', 7, 1, mark);
  expect(cache.get('h1')).toBeUndefined();
  expect(cache.size).toBe(0);
  // A change of another account does not stop it.
  const next = cache.mark();
  feed.listener!.accountChanged(8);
  cache.set('h1', 7, 1, next);
  expect(cache.get('h1')).toBe(1);
  // A change of every account does.
  const last = cache.mark();
  feed.listener!.accountChanged(null);
  cache.set('h2', 9, 2, last);
  expect(cache.size).toBe(0);
});

test('nothing is served or stored while the feed is down; a reset forgets everything', () => {
  const { feed, cache } = setup();
  cache.set('h1', 7, 1, cache.mark());
  feed.live = false;
  expect(cache.get('h1')).toBeUndefined();
  cache.set('h2', 8, 2, cache.mark());
  feed.listener!.feedReset();
  feed.live = true;
  expect(cache.size).toBe(0);
  cache.set('h3', 9, 3, cache.mark());
  feed.listener!.accountChanged(null);
  expect(cache.size).toBe(0);
});

test('the oldest entry makes room when the cache is full', () => {
  const { cache } = setup();
  for (let i = 1; i <= 4; i++) cache.set(`h${i}`, i, i, cache.mark());
  expect(cache.size).toBe(3);
  expect(cache.get('h1')).toBeUndefined();
  expect(cache.get('h4')).toBe(4);
});
