import type { Logger } from '../../../logger';
import { GenerationLeases } from '../settlement/leases';

/** How often a running answer refreshes its lease (and a stream its delivered length). */
const LEASE_HEARTBEAT_MS = 2000;

/** The chat answers this process is running: their leases kept fresh, and a shutdown that waits, then aborts. */
export class AnswersInFlight {
  private readonly open = new Set<{ abort: AbortController; done: Promise<unknown> }>();

  constructor(
    private readonly leases: GenerationLeases,
    private readonly log: Logger,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Tracks an answer until `done`, refreshing its lease with `delivered()` characters meanwhile. */
  follow(generationId: number, abort: AbortController, done: Promise<unknown>, delivered: () => number = () => 0): void {
    const entry = { abort, done };
    this.open.add(entry);
    const heartbeat = setInterval(() => void this.leases.progress(generationId, delivered()).catch(() => undefined), LEASE_HEARTBEAT_MS);
    heartbeat.unref();
    void done
      .finally(() => {
        clearInterval(heartbeat);
        this.open.delete(entry);
      })
      .catch(() => undefined);
  }

  /**
   * Lets open answers finish for up to `graceMs`, then aborts the rest; resolves once every one of them was billed
   * (or deferred), or after `graceMs + billMs` at the latest.
   */
  async drain(graceMs: number, billMs = 5000): Promise<void> {
    const all = () => Promise.allSettled([...this.open].map((e) => e.done));
    const timeout = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
    await Promise.race([all(), timeout(graceMs)]);
    if (this.open.size === 0) return;
    this.log.warn({ open: this.open.size }, 'aborting answers still open at shutdown; billed on what was delivered');
    for (const e of this.open) e.abort.abort();
    await Promise.race([all(), timeout(billMs)]);
  }
}
