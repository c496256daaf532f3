export interface RateWindow {
  /** e.g. `hour`, `day`, `minute` */
  name: string;
  seconds: number;
  /** 0 means unlimited. */
  limit: number;
}

export interface WindowState {
  name: string;
  limit: number;
  /** Requests counted in the current window (including this one when admitted). */
  count: number;
  /** Unix seconds when the window resets. */
  resetAt: number;
}

export interface HitResult {
  allowed: boolean;
  windows: WindowState[];
}

/** Fixed-window counters: all windows are checked and incremented together, or none is. */
export interface CounterStore {
  readonly kind: 'redis' | 'postgres';
  hit(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult>;
  peek(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult>;
}

export function windowStart(nowMs: number, seconds: number): number {
  return Math.floor(nowMs / 1000 / seconds) * seconds;
}

export function isOver(count: number, limit: number): boolean {
  return limit > 0 && count >= limit;
}

/** One counter window as both stores can hold it. `windowStart` and `expiresAt` in Unix seconds. */
export interface CounterEntry {
  key: string;
  windowStart: number;
  count: number;
  expiresAt: number;
}
