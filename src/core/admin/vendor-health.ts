// Each vendor connection's health for the operator: its breaker, its recent error rate, a quota pause.
import type { ConnectionHealth } from '../providers/router';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface VendorConnectionHealth {
  vendor: string;
  /** Its place in `<VENDOR>_API_KEY` (0 is the first key); never the key itself. */
  connection: number;
  origin: string;
  sandbox: boolean;
  weight: number;
  breaker: BreakerState;
  /** Consecutive overloads or timeouts counted towards opening the breaker. */
  failures: number;
  /** Calls of the last 5 minutes on this instance, and the share that failed at the vendor. */
  calls5m: number;
  errorRate5m: number | null;
  /** Paused after the vendor said the account has no credit left, until then (or a successful trial). */
  quotaPausedUntil: Date | null;
  /** How many connections (keys) the vendor has. */
  keys: number;
}

/** An open breaker whose cooldown is over lets one trial call through: half open. */
export function vendorHealth(connections: readonly ConnectionHealth[], now = Date.now()): VendorConnectionHealth[] {
  const keys = new Map<string, number>();
  for (const c of connections) keys.set(c.provider, (keys.get(c.provider) ?? 0) + 1);
  return connections.map((c) => {
    const open = c.state !== 'closed';
    const cooling = open && c.retryAt !== undefined && c.retryAt > now;
    return {
      vendor: c.provider,
      connection: c.index,
      origin: c.origin,
      sandbox: c.sandbox,
      weight: c.weight,
      breaker: !open ? 'closed' : cooling ? 'open' : 'half_open',
      failures: c.failures,
      calls5m: c.calls5m,
      errorRate5m: c.errorRate5m,
      quotaPausedUntil: c.state === 'quota_paused' && c.retryAt !== undefined && c.retryAt > now ? new Date(c.retryAt) : null,
      keys: keys.get(c.provider) ?? 0,
    };
  });
}
