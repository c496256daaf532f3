import { ProviderConnection, ProviderError } from './types';

// Transient vendor failures are retried inside one call: a rate limit after the wait the vendor names, an
// overload (or a 5xx, or a refused connection) after a jittered exponential backoff. Never past the deadline of
// the work, never more than `maxAttempts` times, and never for a timeout (the vendor may still be working on it).

const DEFAULT_ATTEMPTS = 3;
/** The sandbox answers at once, so its backoff is short enough for tests and local runs. */
const BASE_DELAY_MS = { live: 500, sandbox: 20 };
const MAX_DELAY_MS = 8_000;
/** A rate limit asking for a longer wait than this fails the call instead (the caller can come back later). */
const MAX_RETRY_AFTER_MS = 30_000;

export function isTransient(err: ProviderError): boolean {
  if (err.kind === 'overloaded' || err.kind === 'rate_limited') return true;
  return err.kind === 'upstream' && (err.upstreamStatus ?? 0) >= 500;
}

/** `retry-after-ms` (OpenAI), `retry-after` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterFromHeaders(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Google puts the wait in the body: `error.details[] {"@type": ".../google.rpc.RetryInfo", "retryDelay": "12s"}`. */
export function retryAfterFromBody(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const delay = (d as { retryDelay?: unknown } | null)?.retryDelay;
    const m = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (m) return Number(m[1]) * 1000;
  }
  return undefined;
}

/** The wait before attempt `attempt + 1`: full jitter in [0.5, 1.5) of an exponential step. */
export function backoffMs(attempt: number, sandbox: boolean, random = Math.random): number {
  const base = sandbox ? BASE_DELAY_MS.sandbox : BASE_DELAY_MS.live;
  const step = Math.min(MAX_DELAY_MS, base * 2 ** (attempt - 1));
  return Math.round(step * (0.5 + random()));
}

/** The wait before the next attempt, or undefined when no retry fits (attempts used up, deadline too close). */
export function nextDelay(
  err: ProviderError,
  attempt: number,
  conn: ProviderConnection,
  startedAt: number,
  now = Date.now(),
): number | undefined {
  if (!isTransient(err) || attempt >= (conn.maxAttempts ?? DEFAULT_ATTEMPTS)) return undefined;
  let wait = backoffMs(attempt, conn.sandbox);
  if (err.retryAfterMs !== undefined) {
    if (err.retryAfterMs > MAX_RETRY_AFTER_MS) return undefined;
    wait = Math.max(wait, err.retryAfterMs);
  }
  const deadline = conn.deadlineAt ?? startedAt + conn.timeoutMs;
  return now + wait < deadline ? wait : undefined;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
