import { CounterStore, HitResult, RateWindow } from './types';

/**
 * Redis first; when a Redis call fails, the same request is counted in PostgreSQL instead (never in process
 * memory, which would give every instance its own limit).
 */
export class FailoverCounterStore implements CounterStore {
  get kind(): 'redis' | 'postgres' {
    return this.primary.kind;
  }

  constructor(
    private readonly primary: CounterStore,
    private readonly fallback: CounterStore,
    private readonly onFailover: (err: Error) => void = () => undefined,
  ) {}

  private async withFallback(op: (s: CounterStore) => Promise<HitResult>): Promise<HitResult> {
    try {
      return await op(this.primary);
    } catch (err) {
      this.onFailover(err as Error);
      return op(this.fallback);
    }
  }

  hit(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    return this.withFallback((s) => s.hit(key, windows, nowMs));
  }

  peek(key: string, windows: RateWindow[], nowMs: number): Promise<HitResult> {
    return this.withFallback((s) => s.peek(key, windows, nowMs));
  }
}
