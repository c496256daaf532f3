import { DomainError } from '../errors';
import { CounterStore, HitResult, RateWindow, windowStart } from './types';

export interface PlanLimits {
  slug: string;
  rateLimitHourly: number;
  rateLimitDaily: number;
}

/** What the transports need for the X-RateLimit-* headers and the 429 body. */
export interface RateDecision {
  allowed: boolean;
  plan: string;
  limitHour: number;
  remainingHour: number;
  limitDay: number;
  remainingDay: number;
  /** Unix seconds. */
  resetHour: number;
  resetDay: number;
  /** Seconds until the refusing window resets (0 when allowed). */
  retryAfter: number;
}

export class RateLimitedError extends DomainError {
  readonly code = 'rate_limit_exceeded';
  constructor(readonly decision: RateDecision) {
    super('Rate limit exceeded', { retry_after: decision.retryAfter, plan: decision.plan });
  }
}

const remaining = (limit: number, count: number) => (limit === 0 ? 0 : Math.max(0, limit - count));

/** A plan without any limit (Elite): nothing to count, so no counter store is asked (one hop less per request). */
const unlimited = (plan: PlanLimits) => plan.rateLimitHourly === 0 && plan.rateLimitDaily === 0;

/** What the store would answer for windows that admit everything: the windows' own bounds, nothing counted. */
function uncounted(windows: RateWindow[], nowMs: number): HitResult {
  return {
    allowed: true,
    windows: windows.map((w) => ({ name: w.name, limit: w.limit, count: 0, resetAt: windowStart(nowMs, w.seconds) + w.seconds })),
  };
}

/** Per-account hourly and daily request counters, shared by the bot, /api/v2 and /v1. */
export class RateLimiter {
  constructor(
    private readonly store: CounterStore,
    private readonly now: () => number = Date.now,
  ) {}

  private windows(plan: PlanLimits): RateWindow[] {
    return [
      { name: 'hour', seconds: 3600, limit: plan.rateLimitHourly },
      { name: 'day', seconds: 86400, limit: plan.rateLimitDaily },
    ];
  }

  private decide(plan: PlanLimits, r: HitResult, nowMs: number): RateDecision {
    const [h, d] = r.windows;
    const nowS = Math.floor(nowMs / 1000);
    let retryAfter = 0;
    if (!r.allowed) {
      const hourFull = h.limit > 0 && h.count >= h.limit;
      const dayFull = d.limit > 0 && d.count >= d.limit;
      retryAfter = Math.max(1, (dayFull ? d.resetAt : hourFull ? h.resetAt : h.resetAt) - nowS);
    }
    return {
      allowed: r.allowed,
      plan: plan.slug,
      limitHour: h.limit,
      remainingHour: remaining(h.limit, h.count),
      limitDay: d.limit,
      remainingDay: remaining(d.limit, d.count),
      resetHour: h.resetAt,
      resetDay: d.resetAt,
      retryAfter,
    };
  }

  /** Counts one model-running request; refused requests are not counted. */
  async consume(userId: number, plan: PlanLimits): Promise<RateDecision> {
    const nowMs = this.now();
    const windows = this.windows(plan);
    return this.decide(plan, unlimited(plan) ? uncounted(windows, nowMs) : await this.store.hit(`u:${userId}`, windows, nowMs), nowMs);
  }

  /** Counts one model-running request. @throws RateLimitedError when a window is full (nothing counted). */
  async admit(userId: number, plan: PlanLimits): Promise<RateDecision> {
    const decision = await this.consume(userId, plan);
    if (!decision.allowed) throw new RateLimitedError(decision);
    return decision;
  }

  /** The current state without counting (for reads' headers). */
  async peek(userId: number, plan: PlanLimits): Promise<RateDecision> {
    const nowMs = this.now();
    const windows = this.windows(plan);
    return this.decide(plan, unlimited(plan) ? uncounted(windows, nowMs) : await this.store.peek(`u:${userId}`, windows, nowMs), nowMs);
  }

  /** A generic limit on any key, e.g. sign-in attempts per IP. */
  async consumeKey(key: string, window: RateWindow): Promise<{ allowed: boolean; retryAfter: number }> {
    const nowMs = this.now();
    const r = await this.store.hit(key, [window], nowMs);
    return { allowed: r.allowed, retryAfter: r.allowed ? 0 : Math.max(1, r.windows[0].resetAt - Math.floor(nowMs / 1000)) };
  }
}
