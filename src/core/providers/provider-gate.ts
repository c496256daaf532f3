import PQueue from 'p-queue';
import { upstreamDuration } from '../ops/metrics';
import { ProviderError, ProviderName } from './types';
import { ProviderUnavailableError } from './errors';

export interface GateOptions {
  /** Concurrent upstream calls per provider in this process. */
  concurrency: number;
  /** Consecutive overload/timeout failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses new work before one trial call is let through. */
  cooldownMs: number;
  /**
   * How long a provider whose account ran out of credit (a `quota` failure) is paused before one trial call.
   * Default 10 minutes: retrying sooner only repeats the refusal.
   */
  quotaPauseMs?: number;
  now?: () => number;
}

export type CircuitEvent = {
  provider: ProviderName;
  state: 'open' | 'closed';
  reason?: string;
  /** `quota`: the provider's account has no credit left (paused until the admins act or the pause ends). */
  cause?: 'failures' | 'quota';
};

const DEFAULT_QUOTA_PAUSE_MS = 10 * 60_000;

interface Circuit {
  failures: number;
  openedAt?: number;
  /** How long this opening lasts (the cooldown, or the quota pause). */
  openFor?: number;
  quotaPaused?: boolean;
  trialInFlight: boolean;
}

/** Caps concurrent calls per provider (p-queue) and opens a circuit after repeated overloads. */
export class ProviderGate {
  private readonly queues = new Map<ProviderName, PQueue>();
  private readonly circuits = new Map<ProviderName, Circuit>();
  private readonly listeners: ((e: CircuitEvent) => void)[] = [];
  private readonly now: () => number;

  constructor(private readonly options: GateOptions) {
    this.now = options.now ?? Date.now;
  }

  onCircuitChange(listener: (e: CircuitEvent) => void): void {
    this.listeners.push(listener);
  }

  private circuit(provider: ProviderName): Circuit {
    let c = this.circuits.get(provider);
    if (!c) this.circuits.set(provider, (c = { failures: 0, trialInFlight: false }));
    return c;
  }

  isOpen(provider: ProviderName): boolean {
    const c = this.circuit(provider);
    if (c.openedAt === undefined) return false;
    return this.now() - c.openedAt < (c.openFor ?? this.options.cooldownMs) || c.trialInFlight;
  }

  /** @throws ProviderUnavailableError while the circuit is open. */
  assertAvailable(provider: ProviderName, modelSlug: string): void {
    if (!this.isOpen(provider)) return;
    const c = this.circuit(provider);
    const retryAfter = Math.max(1, Math.ceil((c.openedAt! + (c.openFor ?? this.options.cooldownMs) - this.now()) / 1000));
    throw new ProviderUnavailableError(
      provider,
      modelSlug,
      `The model ${modelSlug} is overloaded right now (its provider is failing). Please wait about ${retryAfter} s or switch to another model.`,
      retryAfter,
    );
  }

  /** Records a call's outcome for the circuit without queueing it (chat streams hold no queue slot). */
  async track<T>(provider: ProviderName, task: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      const result = await task();
      this.record(provider, null, started);
      return result;
    } catch (err) {
      this.record(provider, err, started);
      throw err;
    }
  }

  /** Records the outcome of work observed elsewhere (e.g. the end of a stream that began at `startedAt`). */
  observe(provider: ProviderName, err: unknown, startedAt?: number): void {
    this.record(provider, err, startedAt);
  }

  async run<T>(provider: ProviderName, task: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(provider);
    if (!queue) this.queues.set(provider, (queue = new PQueue({ concurrency: this.options.concurrency })));
    const c = this.circuit(provider);
    const trial = c.openedAt !== undefined;
    if (trial) c.trialInFlight = true;
    try {
      const result = await queue.add(async () => {
        const started = Date.now();
        try {
          const r = await task();
          this.record(provider, null, started);
          return r;
        } catch (err) {
          this.record(provider, err, started);
          throw err;
        }
      });
      return result as T;
    } finally {
      if (trial) c.trialInFlight = false;
    }
  }

  private record(provider: ProviderName, err: unknown, startedAt?: number): void {
    if (startedAt !== undefined) {
      const outcome = err === null ? 'ok' : err instanceof ProviderError ? err.kind : 'error';
      upstreamDuration.observe({ provider, outcome }, (Date.now() - startedAt) / 1000);
    }
    const c = this.circuit(provider);
    if (err instanceof ProviderError && err.kind === 'quota') {
      const wasOpen = c.openedAt !== undefined;
      c.openedAt = this.now();
      c.openFor = this.options.quotaPauseMs ?? DEFAULT_QUOTA_PAUSE_MS;
      c.quotaPaused = true;
      if (!wasOpen) this.emit({ provider, state: 'open', cause: 'quota', reason: `account out of credit: ${err.message}` });
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
        if (wasOpen) this.emit({ provider, state: 'closed' });
      }
      return;
    }
    c.failures += 1;
    if (c.failures >= this.options.failureThreshold) {
      const wasOpen = c.openedAt !== undefined;
      c.openedAt = this.now();
      c.openFor = this.options.cooldownMs;
      if (!wasOpen) this.emit({ provider, state: 'open', cause: 'failures', reason: (err as Error).message });
    }
  }

  private emit(e: CircuitEvent): void {
    for (const l of this.listeners) l(e);
  }
}
