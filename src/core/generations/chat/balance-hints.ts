export interface BalanceHintOptions {
  /** A balance seen longer ago than this is not trusted. */
  ttlMs?: number;
  /** How many times the hold the last balance seen must be, to call it clearly covered. */
  margin?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * The balance this instance last saw per account (after a settlement), used only to decide whether the vendor call
 * may start while the hold is still committing. Never a source of truth: the hold statement decides, and a refused
 * hold aborts the early call at once. Forgetting is always safe (the request then waits for its hold first).
 */
export class BalanceHints {
  private readonly seen = new Map<number, { total: number; at: number }>();
  private readonly ttlMs: number;
  private readonly margin: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: BalanceHintOptions = {}) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.margin = options.margin ?? 10;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  note(userId: number, total: number): void {
    if (!this.seen.has(userId) && this.seen.size >= this.maxEntries) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    this.seen.set(userId, { total, at: this.now() });
  }

  forget(userId: number): void {
    this.seen.delete(userId);
  }

  /** True when the balance last seen, recently, is at least `margin` times `amount`. */
  covers(userId: number, amount: number): boolean {
    const hint = this.seen.get(userId);
    if (!hint || this.now() - hint.at > this.ttlMs) return false;
    return hint.total >= amount * this.margin;
  }
}
