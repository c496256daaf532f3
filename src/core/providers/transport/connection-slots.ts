/**
 * A vendor's connection pool as a count of slots with a line in front of it, so no request waits without bound:
 * a request that gets no slot before its deadline leaves the line with a `VendorPoolBusyError` (undici's own pool
 * queue has no limit and its timeouts start only once a request is on a socket).
 */
class VendorPoolBusyError extends Error {
  constructor(
    readonly origin: string,
    readonly waitedMs: number,
    /** A fair wait before trying again, in whole seconds. */
    readonly retryAfterSeconds: number,
  ) {
    super(`every connection to ${origin} stayed busy for ${waitedMs} ms`);
    this.name = 'VendorPoolBusyError';
  }
}

/** What a refusal tells: stays inside the providers, the route turns it into a ProviderUnavailableError. */
export interface VendorPoolBusy extends Error {
  readonly waitedMs: number;
  readonly retryAfterSeconds: number;
}

export function isVendorPoolBusy(err: unknown): err is VendorPoolBusy {
  return err instanceof VendorPoolBusyError;
}

interface Waiter {
  grant: () => void;
  fail: (err: Error) => void;
}

/** Retry-After for a refused request: the pool frees slots as answers end; a few seconds is a fair wait. */
const RETRY_AFTER_SECONDS = 5;

export class ConnectionSlots {
  private busy = 0;
  private readonly line: Waiter[] = [];

  constructor(readonly size: number) {}

  get inUse(): number {
    return this.busy;
  }

  get waiting(): number {
    return this.line.length;
  }

  /**
   * Resolves with the slot's release once one is free; rejects with VendorPoolBusyError after `maxWaitMs`, or with
   * the signal's reason when it aborts first. The release is idempotent.
   */
  acquire(origin: string, maxWaitMs: number, signal?: AbortSignal): Promise<() => void> {
    if (this.busy < this.size && this.line.length === 0) {
      this.busy++;
      return Promise.resolve(this.releaser());
    }
    const queuedAt = Date.now();
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.line.indexOf(waiter);
        if (at >= 0) this.line.splice(at, 1);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          resolve(this.releaser());
        },
        fail: (err) => {
          leave();
          reject(err);
        },
      };
      const onAbort = () => waiter.fail(signal!.reason instanceof Error ? signal!.reason : new DOMException('aborted', 'AbortError'));
      const timer = setTimeout(() => waiter.fail(new VendorPoolBusyError(origin, Date.now() - queuedAt, RETRY_AFTER_SECONDS)), maxWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.line.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.line[0];
      // The slot passes straight to the first in line: the count stays.
      if (next) next.grant();
      else this.busy--;
    };
  }
}
