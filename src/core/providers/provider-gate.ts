import PQueue from 'p-queue';
import { upstreamDuration } from '../ops/metrics';
import { ProviderError, ProviderName } from './types';
import { ProviderUnavailableError } from './errors';
import { OutcomeWindow } from './outcome-window';

export interface GateOptions {
  /** Concurrent upstream calls per provider in this process. */
  concurrency: number;
  /** Consecutive overload/timeout failures of a connection that open its circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses new work before one trial call is let through. */
  cooldownMs: number;
  /**
   * How long a connection whose account ran out of credit (a `quota` failure) is paused before one trial call.
   * Default 10 minutes: retrying sooner only repeats the refusal.
   */
  quotaPauseMs?: number;
  now?: () => number;
}

/** One of a vendor's connections: its place in `<VENDOR>_API_KEY` (0 is the first), of how many (default 1). */
export interface ConnectionRef {
  provider: ProviderName;
  index: number;
  of?: number;
}

export type CircuitEvent = {
  provider: ProviderName;
  /** The connection whose circuit changed (its index), of how many the vendor has. */
  connection: number;
  connections: number;
  state: 'open' | 'closed';
  reason?: string;
  /** `quota`: the connection's account has no credit left (paused until the admins act or the pause ends). */
  cause?: 'failures' | 'quota';
};

/** A connection's circuit as the operator sees it. */
export interface CircuitState {
  state: 'closed' | 'open' | 'quota_paused';
  /** Consecutive failures counted towards opening. */
  failures: number;
  /** While open: when the next trial call may go (epoch ms). */
  retryAt?: number;
  /** Calls of the last 5 minutes in this process, and the share that failed at the vendor (null: no calls). */
  calls5m: number;
  errorRate5m: number | null;
}

const DEFAULT_QUOTA_PAUSE_MS = 10 * 60_000;

interface Circuit {
  failures: number;
  openedAt?: number;
  /** How long this opening lasts (the cooldown, or the quota pause). */
  openFor?: number;
  quotaPaused?: boolean;
  trialInFlight: boolean;
  recent: OutcomeWindow;
}

const keyOf = (ref: ConnectionRef) => `${ref.provider}#${ref.index}`;

/**
 * Caps concurrent calls per provider (p-queue), and keeps a circuit per connection: it opens after repeated
 * overloads (or at once on a quota failure), so one key's trouble is that key's alone.
 */
export class ProviderGate {
  private readonly queues = new Map<ProviderName, PQueue>();
  private readonly circuits = new Map<string, Circuit>();
  private readonly listeners: ((e: CircuitEvent) => void)[] = [];
  private readonly now: () => number;

  constructor(private readonly options: GateOptions) {
    this.now = options.now ?? Date.now;
  }

  onCircuitChange(listener: (e: CircuitEvent) => void): void {
    this.listeners.push(listener);
  }

  private circuit(ref: ConnectionRef): Circuit {
    let c = this.circuits.get(keyOf(ref));
    if (!c) this.circuits.set(keyOf(ref), (c = { failures: 0, trialInFlight: false, recent: new OutcomeWindow() }));
    return c;
  }

  private openUntil(c: Circuit): number | undefined {
    return c.openedAt === undefined ? undefined : c.openedAt + (c.openFor ?? this.options.cooldownMs);
  }

  /** Whether the connection refuses calls now: open and within its cooldown (or pause), or its one trial is running. */
  isOpen(ref: ConnectionRef): boolean {
    const c = this.circuit(ref);
    if (c.openedAt === undefined) return false;
    return this.now() < this.openUntil(c)! || c.trialInFlight;
  }

  state(ref: ConnectionRef): CircuitState {
    const c = this.circuit(ref);
    const { calls, failures } = c.recent.totals(this.now());
    const recent = { calls5m: calls, errorRate5m: calls > 0 ? failures / calls : null };
    if (c.openedAt === undefined) return { state: 'closed', failures: c.failures, ...recent };
    return { state: c.quotaPaused ? 'quota_paused' : 'open', failures: c.failures, retryAt: this.openUntil(c), ...recent };
  }

  /** @throws ProviderUnavailableError unless one of `connections` (a vendor's) takes calls. */
  assertAvailable(provider: ProviderName, modelSlug: string, connections: readonly ConnectionRef[]): void {
    if (connections.some((ref) => !this.isOpen(ref))) return;
    const soonest = Math.min(...connections.map((ref) => this.openUntil(this.circuit(ref)) ?? this.now()));
    const retryAfter = Math.max(1, Math.ceil((soonest - this.now()) / 1000));
    throw new ProviderUnavailableError(
      provider,
      modelSlug,
      `The model ${modelSlug} is overloaded right now (its provider is failing). Please wait about ${retryAfter} s or switch to another model.`,
      retryAfter,
    );
  }

  /** Runs `task` behind the provider's concurrency cap. */
  async queued<T>(provider: ProviderName, task: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(provider);
    if (!queue) this.queues.set(provider, (queue = new PQueue({ concurrency: this.options.concurrency })));
    return (await queue.add(task)) as T;
  }

  /**
   * Runs one call on the connection and feeds its outcome to the circuit. A connection whose opening is over lets
   * this call through as its one trial: others are refused until it ends.
   */
  async attempt<T>(ref: ConnectionRef, task: () => Promise<T>): Promise<T> {
    const c = this.circuit(ref);
    const trial = c.openedAt !== undefined;
    if (trial) c.trialInFlight = true;
    const started = Date.now();
    try {
      const result = await task();
      this.record(ref, null, started);
      return result;
    } catch (err) {
      this.record(ref, err, started);
      throw err;
    } finally {
      if (trial) c.trialInFlight = false;
    }
  }

  /** Records the outcome of work observed elsewhere (e.g. the end of a stream that began at `startedAt`). */
  observe(ref: ConnectionRef, err: unknown, startedAt?: number): void {
    this.record(ref, err, startedAt);
  }

  private record(ref: ConnectionRef, err: unknown, startedAt?: number): void {
    const { provider, index: connection, of: connections = 1 } = ref;
    if (startedAt !== undefined) {
      const outcome = err === null ? 'ok' : err instanceof ProviderError ? err.kind : 'error';
      upstreamDuration.observe({ provider, outcome }, (Date.now() - startedAt) / 1000);
    }
    const c = this.circuit(ref);
    // A request the vendor refused for its content is the caller's failure, not the connection's.
    c.recent.add(
      this.now(),
      err !== null && !(err instanceof ProviderError && (err.kind === 'bad_request' || err.kind === 'content_policy')),
    );
    if (err instanceof ProviderError && err.kind === 'quota') {
      const wasOpen = c.openedAt !== undefined;
      c.openedAt = this.now();
      c.openFor = this.options.quotaPauseMs ?? DEFAULT_QUOTA_PAUSE_MS;
      c.quotaPaused = true;
      if (!wasOpen) {
        this.emit({ provider, connection, connections, state: 'open', cause: 'quota', reason: `account out of credit: ${err.message}` });
      }
      return;
    }
    const counts = err instanceof ProviderError && (err.kind === 'overloaded' || err.kind === 'rate_limited' || err.kind === 'timeout');
    // Only a success lifts a quota pause: another failure says nothing about the account's credit.
    if (c.quotaPaused && err !== null) return;
    if (!counts) {
      if (err === null || err instanceof ProviderError) {
        const wasOpen = c.openedAt !== undefined;
        c.failures = 0;
        c.openedAt = undefined;
        c.openFor = undefined;
        c.quotaPaused = false;
        if (wasOpen) this.emit({ provider, connection, connections, state: 'closed' });
      }
      return;
    }
    c.failures += 1;
    if (c.failures >= this.options.failureThreshold) {
      const wasOpen = c.openedAt !== undefined;
      c.openedAt = this.now();
      c.openFor = this.options.cooldownMs;
      if (!wasOpen) this.emit({ provider, connection, connections, state: 'open', cause: 'failures', reason: (err as Error).message });
    }
  }

  private emit(e: CircuitEvent): void {
    for (const l of this.listeners) l(e);
  }
}
