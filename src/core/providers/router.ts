import { providerConnectionRequestsTotal, providerFailoversTotal } from '../ops/metrics';
import { ProviderUnavailableError } from './errors';
import type { ProviderConnections, PooledConnection } from './connections';
import type { CircuitState, ProviderGate } from './provider-gate';
import { isVendorPoolBusy } from './transport/connection-slots';
import { ProviderConnection, ProviderError, ProviderName } from './types';

/**
 * Whether a failure leaves the request free to go elsewhere: the vendor never started answering it (it refused it
 * with an error status, or could not be reached in time), for a reason another connection may not share. Invalid
 * requests and refused content would fail the same way anywhere.
 */
export function movesOn(err: unknown): boolean {
  if (err instanceof ProviderUnavailableError) return true;
  if (!(err instanceof ProviderError) || !err.beforeFirstByte) return false;
  return err.kind !== 'bad_request' && err.kind !== 'content_policy';
}

/** One connection's health, for the operator (never its key). */
export interface ConnectionHealth extends CircuitState {
  provider: ProviderName;
  /** Its place in `<VENDOR>_API_KEY` (0 is the first key). */
  index: number;
  /** The origin it calls (`https://api.openai.com`); the sandbox's for a sandboxed vendor. */
  origin: string;
  sandbox: boolean;
  weight: number;
}

/** What a task learns of the connection it runs on. */
export interface Via {
  conn: ProviderConnection;
  connection: PooledConnection;
}

export interface CallOptions {
  /** Wait for a slot under the provider's concurrency cap first (media calls; chat answers take none). */
  queued?: boolean;
  /** When the work must be over (epoch ms): bounds each connection's retries. */
  deadlineAt?: number;
  /** Another model may take the request after this vendor: no connection retries in place, the next one is tried. */
  moreToTry?: boolean;
  /**
   * Called once the call may go (its slot under the cap taken), before any byte goes to the vendor: it throws when
   * the request is no longer wanted (its client left while it waited), and nothing is sent.
   */
  beforeDispatch?: () => void;
}

/**
 * One request's way to its vendor: the vendor's connections in the order this request tries them. A failure that
 * leaves the request free to go elsewhere (`movesOn`) moves it to the next connection; the last one keeps the
 * vendor client's own retries. Each attempt feeds its connection's circuit.
 */
export class VendorRoute {
  constructor(
    readonly provider: ProviderName,
    private readonly modelSlug: string,
    private readonly order: readonly PooledConnection[],
    private readonly gate: ProviderGate,
  ) {}

  get sandbox(): boolean {
    return this.order[0]?.conn.sandbox ?? false;
  }

  /** The connections still taking calls, in this request's order. @throws ProviderUnavailableError when none is. */
  private candidates(): PooledConnection[] {
    this.gate.assertAvailable(this.provider, this.modelSlug, this.order);
    return this.order.filter((c) => !this.gate.isOpen(c));
  }

  private via(c: PooledConnection, retries: boolean, deadlineAt?: number): Via {
    const conn = { ...c.conn, ...(retries ? {} : { maxAttempts: 1 }), ...(deadlineAt !== undefined ? { deadlineAt } : {}) };
    return { conn, connection: c };
  }

  /**
   * Every connection to the vendor stayed busy for the whole upstream timeout: the request is refused as the
   * model being unavailable for now (503 with Retry-After). Its keys share one pool, so no other connection is tried.
   */
  private refusedWhenBusy(err: unknown): unknown {
    if (!isVendorPoolBusy(err)) return err;
    return new ProviderUnavailableError(
      this.provider,
      this.modelSlug,
      `The model ${this.modelSlug} is busy right now (every connection to its provider is in use). Please wait about ${err.retryAfterSeconds} s and try again.`,
      err.retryAfterSeconds,
    );
  }

  private failedOver(c: PooledConnection, err: unknown): void {
    providerFailoversTotal.inc({
      provider: c.provider,
      connection: String(c.index),
      reason: err instanceof ProviderError ? err.kind : 'unavailable',
    });
  }

  /** Runs `task` on the first connection that serves it. */
  async call<T>(task: (via: Via) => Promise<T>, options: CallOptions = {}): Promise<T> {
    const attempt = async () => {
      options.beforeDispatch?.();
      const candidates = this.candidates();
      for (let i = 0; ; i++) {
        const c = candidates[i]!;
        const last = i === candidates.length - 1;
        try {
          const result = await this.gate.attempt(c, () => task(this.via(c, last && !options.moreToTry, options.deadlineAt)));
          countRequest(c, null);
          return result;
        } catch (err) {
          countRequest(c, err);
          if (isVendorPoolBusy(err)) throw this.refusedWhenBusy(err);
          if (last || !movesOn(err)) throw err;
          this.failedOver(c, err);
        }
      }
    };
    return options.queued ? this.gate.queued(this.provider, attempt) : attempt();
  }

  /**
   * A stream from the first connection that starts one: it moves on only before the first event (a failure after
   * that is the stream's). `signal` is the caller's abort: an aborted stream is not the vendor's failure.
   */
  stream<E>(open: (via: Via) => AsyncIterable<E>, signal?: AbortSignal, options: Pick<CallOptions, 'moreToTry'> = {}): AsyncIterable<E> {
    const route = this;
    return (async function* () {
      const candidates = route.candidates();
      for (let i = 0; ; i++) {
        const c = candidates[i]!;
        const last = i === candidates.length - 1;
        const startedAt = Date.now();
        const it = open(route.via(c, last && !options.moreToTry))[Symbol.asyncIterator]();
        let first: IteratorResult<E>;
        try {
          first = await it.next();
        } catch (err) {
          const failure = signal?.aborted ? null : err;
          route.gate.observe(c, failure, startedAt);
          countRequest(c, failure);
          if (isVendorPoolBusy(err)) throw route.refusedWhenBusy(err);
          if (last || !movesOn(err) || signal?.aborted) throw err;
          route.failedOver(c, err);
          continue;
        }
        let failure: unknown = null;
        let ended = first.done === true;
        try {
          if (!first.done) {
            yield first.value;
            for (let step = await it.next(); !step.done; step = await it.next()) yield step.value;
            ended = true;
          }
        } catch (err) {
          if (!signal?.aborted) failure = err;
          throw err;
        } finally {
          // A reader that stops early closes the vendor's stream too; a stream cut short is no fault of the vendor.
          if (!ended && failure === null) await it.return?.();
          route.gate.observe(c, failure, startedAt);
          countRequest(c, failure);
        }
        return;
      }
    })();
  }
}

function countRequest(c: PooledConnection, err: unknown): void {
  const outcome = err === null ? 'ok' : err instanceof ProviderError ? err.kind : 'error';
  providerConnectionRequestsTotal.inc({ provider: c.provider, connection: String(c.index), outcome });
}

/** Smooth weighted round-robin (as nginx balances upstreams): over time each connection starts its weight's share. */
class Rotation {
  private readonly current = new Map<number, number>();

  next(pool: readonly PooledConnection[]): PooledConnection {
    const total = pool.reduce((sum, c) => sum + c.weight, 0);
    let best = pool[0]!;
    for (const c of pool) {
      const value = (this.current.get(c.index) ?? 0) + c.weight;
      this.current.set(c.index, value);
      if (value > (this.current.get(best.index) ?? 0)) best = c;
    }
    this.current.set(best.index, this.current.get(best.index)! - total);
    return best;
  }
}

/**
 * Chooses, per request, the order in which a vendor's connections are tried: the first by weight among those
 * taking calls, then the rest as configured. Polls of a job go back to the connection that accepted it.
 */
export class ProviderRouter {
  private readonly rotations = new Map<ProviderName, Rotation>();

  constructor(
    readonly connections: ProviderConnections,
    readonly gate: ProviderGate,
  ) {}

  /** @throws ProviderUnavailableError when the vendor has no connection, or none takes calls now. */
  assertAvailable(provider: ProviderName, modelSlug: string): void {
    this.gate.assertAvailable(provider, modelSlug, this.connections.pool(provider, modelSlug));
  }

  /** The order this request tries the vendor's connections in. @throws ProviderUnavailableError as `assertAvailable`. */
  route(provider: ProviderName, modelSlug: string): VendorRoute {
    const pool = this.connections.pool(provider, modelSlug);
    this.gate.assertAvailable(provider, modelSlug, pool);
    const taking = pool.filter((c) => !this.gate.isOpen(c));
    let rotation = this.rotations.get(provider);
    if (!rotation) this.rotations.set(provider, (rotation = new Rotation()));
    const first = rotation.next(taking);
    const rest = [...pool.slice(first.index + 1), ...pool.slice(0, first.index)];
    return new VendorRoute(provider, modelSlug, [first, ...rest], this.gate);
  }

  /**
   * The connection a vendor job was accepted on (its `id`), for polling it: another key's account would not know
   * the job. A connection no longer configured falls back to the vendor's first.
   */
  pinned(provider: ProviderName, modelSlug: string, connectionId: string | null): VendorRoute {
    const pool = this.connections.pool(provider, modelSlug);
    const own = pool.find((c) => c.id === connectionId) ?? pool[0]!;
    return new VendorRoute(provider, modelSlug, [own], this.gate);
  }

  /** Every configured connection's state, vendor by vendor, in configuration order (an admin console shows it). */
  health(): ConnectionHealth[] {
    return this.connections.providers().flatMap((provider) => {
      if (this.connections.info(provider).mode === 'unavailable') return [];
      return this.connections.pool(provider, '').map((c) => ({
        provider,
        index: c.index,
        origin: c.conn.baseUrl.startsWith('local:') ? c.conn.baseUrl : new URL(c.conn.baseUrl).origin,
        sandbox: c.conn.sandbox,
        weight: c.weight,
        ...this.gate.state(c),
      }));
    });
  }
}
