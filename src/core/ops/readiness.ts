import { withTimeout } from './with-timeout';

/** Where the process is in its life: only `ready` takes traffic. */
export type Phase = 'starting' | 'ready' | 'draining';

export type Check = () => Promise<unknown>;

export interface ReadinessReport {
  ready: boolean;
  /** `degraded`: ready, but a dependency with a fallback (Redis: the counters run on PostgreSQL) is down. */
  status: Phase | 'unavailable' | 'degraded';
  /** `ok`, or what failed, per dependency. */
  checks: Record<string, string>;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * The readiness probe: the phase plus one check per dependency (database, Redis when configured, job queue). A
 * dependency with a fallback (Redis) that fails makes the instance `degraded`, still ready: it can serve.
 */
export class Readiness {
  private current: Phase = 'starting';
  private readonly checks = new Map<string, Check>();
  /** Checks whose failure leaves the instance serving (on a fallback): they degrade, never unready. */
  private readonly withFallback = new Set<string>();

  get phase(): Phase {
    return this.current;
  }

  set(phase: Phase): void {
    // Draining is final: a late "ready" from a slow start cannot reopen a stopping process.
    if (this.current !== 'draining') this.current = phase;
  }

  addCheck(name: string, check: Check, options: { hasFallback?: boolean } = {}): void {
    this.checks.set(name, check);
    if (options.hasFallback) this.withFallback.add(name);
    else this.withFallback.delete(name);
  }

  async report(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          await withTimeout(check(), CHECK_TIMEOUT_MS);
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, (err as Error).message || 'failed'] as const;
        }
      }),
    );
    const checks = Object.fromEntries(entries);
    const failed = entries.filter(([, v]) => v !== 'ok').map(([name]) => name);
    const healthy = failed.every((name) => this.withFallback.has(name));
    const ready = this.current === 'ready' && healthy;
    const status = this.current !== 'ready' ? this.current : !healthy ? 'unavailable' : failed.length ? 'degraded' : 'ready';
    return { ready, status, checks };
  }
}
