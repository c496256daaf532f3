/** Retry timing of webhook deliveries. */
export interface RetryPolicy {
  /** Delay before the second attempt; each later delay is FACTOR times the previous one, up to MAX_DELAY_MS. */
  baseMs: number;
  /** How long after the event attempts continue; past it the delivery fails and the endpoint is marked failing. */
  windowMs: number;
}

export const RETRY_FACTOR = 4;
export const MAX_DELAY_MS = 6 * 3600_000;
/** ±20 % so that endpoints that failed together do not all come back at the same instant. */
export const JITTER = 0.2;

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 15_000, windowMs: 24 * 3600_000 };

/** Delay after the `attempt`-th failed attempt (1-based), with jitter. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const plain = Math.min(policy.baseMs * RETRY_FACTOR ** Math.max(0, attempt - 1), MAX_DELAY_MS);
  return Math.max(1, Math.round(plain * (1 - JITTER + 2 * JITTER * random())));
}

/** The nominal schedule (no jitter): delays between attempts while they fit within the window. */
export function retrySchedule(policy: RetryPolicy): number[] {
  const delays: number[] = [];
  let elapsed = 0;
  for (let attempt = 1; ; attempt++) {
    const delay = Math.min(policy.baseMs * RETRY_FACTOR ** (attempt - 1), MAX_DELAY_MS);
    if (elapsed + delay > policy.windowMs) return delays;
    elapsed += delay;
    delays.push(delay);
  }
}
