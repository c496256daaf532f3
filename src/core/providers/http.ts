import { createParser } from 'eventsource-parser';
import { byStatus } from './faults';
import { nextDelay, retryAfterFromBody, retryAfterFromHeaders, sleep } from './retry';
import {
  VendorFetch,
  VendorInit,
  asFetchError,
  failedMidBody,
  isPhaseTimeout,
  isResponseTooLarge,
  responseTooLarge,
} from './transport/vendor-fetch';
import { isVendorPoolBusy } from './transport/connection-slots';
import { nodeBodyOf } from './transport/streamed-response';
import { ProviderConnection, ProviderError, ProviderErrorKind, ProviderName } from './types';

export interface UpstreamRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** A plain object is sent as JSON; FormData and Buffer are sent as they are. */
  body?: unknown;
  signal?: AbortSignal;
}

/** A vendor-neutral reading of a status, for callers that have no vendor body (kept for in-body errors). */
export function classifyStatus(status: number, message = ''): ProviderErrorKind {
  return byStatus(status, message);
}

/**
 * A timer on the response head, for fetch implementations that have none of their own (test stubs, the global
 * fetch); the vendor client enforces per-phase timeouts itself. A stream may then run as long as the vendor keeps
 * sending (the caller's signal still aborts it).
 */
function headTimeout(timeoutMs: number, signal?: AbortSignal): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('upstream timeout', 'TimeoutError')), timeoutMs);
  return {
    signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
    clear: () => clearTimeout(timer),
  };
}

/** Extracts a human message from the common vendor error bodies (`{error:{message}}`, `{detail}`, `{message}`). */
export function vendorErrorMessage(body: unknown, fallback: string): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const err = b.error;
    if (err && typeof err === 'object' && typeof (err as Record<string, unknown>).message === 'string') {
      return (err as Record<string, string>).message;
    }
    if (typeof err === 'string') return err;
    if (typeof b.detail === 'string') return b.detail;
    if (b.detail && typeof b.detail === 'object') {
      const d = b.detail as Record<string, unknown>;
      if (typeof d.message === 'string') return d.message;
    }
    if (typeof b.message === 'string') return b.message;
  }
  return fallback;
}

const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

function encodeBody(req: UpstreamRequest, headers: Record<string, string>): RequestInit['body'] {
  if (req.body instanceof FormData || req.body instanceof Uint8Array || typeof req.body === 'string') {
    return req.body as RequestInit['body'];
  }
  if (req.body === undefined) return undefined;
  headers['content-type'] = 'application/json';
  return JSON.stringify(req.body);
}

/** A non-2xx answer as a ProviderError, classified by the vendor's own fault table (the connection carries it). */
async function faultOf(provider: ProviderName, conn: ProviderConnection, res: Response): Promise<ProviderError> {
  const text = await res.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  const message = vendorErrorMessage(body, text.slice(0, 300) || `HTTP ${res.status}`);
  const kind = conn.faults({ status: res.status, body, message });
  const retryAfter = retryAfterFromHeaders(res.headers) ?? retryAfterFromBody(body);
  return new ProviderError(kind, message, provider, res.status, retryAfter, true);
}

function transportFailure(provider: ProviderName, err: unknown): ProviderError {
  const e = err as Error;
  if (isResponseTooLarge(e)) return new ProviderError('upstream', `${provider}: ${e.message}`, provider);
  const beforeFirstByte = !failedMidBody(e);
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
    return new ProviderError(
      'timeout',
      `${provider} did not answer in time (${e.message})`,
      provider,
      undefined,
      undefined,
      beforeFirstByte,
    );
  }
  if (!beforeFirstByte) return new ProviderError('upstream', `${provider} dropped the connection mid-response: ${e.message}`, provider);
  return new ProviderError(
    'overloaded',
    `${provider} could not be reached: ${e?.message ?? String(err)}`,
    provider,
    undefined,
    undefined,
    true,
  );
}

async function attempt(provider: ProviderName, conn: ProviderConnection, req: UpstreamRequest, url: string): Promise<Response> {
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  const body = encodeBody(req, headers);
  const init: VendorInit = {
    method: req.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    signal: req.signal,
    headersTimeoutMs: conn.timeoutMs,
  };
  if (conn.maxResponseBytes !== undefined) init.maxResponseBytes = conn.maxResponseBytes;
  const timer = (conn.fetch as Partial<VendorFetch>).phaseTimeouts ? undefined : headTimeout(conn.timeoutMs, req.signal);
  if (timer) init.signal = timer.signal;
  let res: Response;
  try {
    res = await conn.fetch(url, init);
  } catch (err) {
    // A call that never got a connection in time is refused as it is (the route renders it): not retried here.
    if (req.signal?.aborted || isVendorPoolBusy(err)) throw err;
    throw transportFailure(provider, err);
  } finally {
    timer?.clear();
  }
  if (!res.ok) throw await faultOf(provider, conn, res);
  return res;
}

/**
 * Sends one request to the vendor. Non-2xx answers become a ProviderError of the vendor's documented kind;
 * transient ones (overload, rate limit, 5xx, unreachable) are retried within the attempts and the deadline.
 */
export async function upstreamFetch(provider: ProviderName, conn: ProviderConnection, req: UpstreamRequest): Promise<Response> {
  const url = /^https?:\/\//.test(req.path) ? req.path : conn.baseUrl + req.path;
  const startedAt = Date.now();
  for (let n = 1; ; n++) {
    try {
      return await attempt(provider, conn, req, url);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      const wait = nextDelay(err, n, conn, startedAt);
      if (wait === undefined) throw err;
      await sleep(wait, req.signal);
    }
  }
}

export async function upstreamJson<T>(provider: ProviderName, conn: ProviderConnection, req: UpstreamRequest): Promise<T> {
  const res = await upstreamFetch(provider, conn, req);
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProviderError('upstream', `${provider} answered with a body that is not JSON`, provider, res.status);
  }
}

/**
 * Downloads a body whole (a result file). A body that breaks off or stalls becomes a ProviderError like any
 * other upstream failure. `mime` is the response's content type, or undefined when it sent none.
 */
export async function upstreamBytes(
  provider: ProviderName,
  conn: ProviderConnection,
  req: UpstreamRequest,
): Promise<{ data: Buffer; mime: string | undefined; res: Response }> {
  const res = await upstreamFetch(provider, conn, req);
  const limit = conn.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let data: Buffer;
  try {
    if (Number(res.headers.get('content-length')) > limit) throw responseTooLarge(limit, res.url || String(req.path));
    data = Buffer.from(await res.arrayBuffer());
    if (data.length > limit) throw responseTooLarge(limit, res.url || String(req.path));
  } catch (err) {
    if (isResponseTooLarge(err)) throw new ProviderError('upstream', `${provider}: ${(err as Error).message}`, provider);
    if (req.signal?.aborted) throw err;
    const name = (err as { name?: string } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new ProviderError('timeout', `${provider} download did not finish in time`, provider);
    }
    throw new ProviderError('upstream', `${provider} download broke off: ${(err as Error).message}`, provider);
  }
  return { data, mime: res.headers.get('content-type')?.split(';')[0].trim() || undefined, res };
}

export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * The events of a text/event-stream response as they arrive. The vendor client's responses are read from their
 * Node stream (no web-stream adapters per chunk); any other Response through its `body`.
 */
export async function* readSseResponse(res: Response): AsyncGenerator<SseEvent> {
  const node = nodeBodyOf(res);
  if (!node) {
    if (!res.body) return;
    yield* readSse(res.body);
    return;
  }
  const chunks = node[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    yield* sseEvents(() => chunks.next());
  } finally {
    node.destroy();
  }
}

/** Whether a response has a body to read (without turning a vendor client's stream into a web stream). */
export function hasBody(res: Response): boolean {
  return nodeBodyOf(res) !== undefined || res.body !== null;
}

/** Lets go of a response body that will not be read further (the connection is not kept for reuse). */
export async function discardBody(res: Response): Promise<void> {
  const node = nodeBodyOf(res);
  if (node) node.destroy();
  else await res.body?.cancel().catch(() => undefined);
}

/**
 * Parses a text/event-stream body into events as they arrive (eventsource-parser). A stream that stalls past the
 * client's idle timeout ends with a TimeoutError.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  try {
    yield* sseEvents(() => reader.read());
  } finally {
    reader.releaseLock();
  }
}

/** Feeds the chunks `next` gives through eventsource-parser, yielding each event as soon as it is complete. */
async function* sseEvents(next: () => Promise<IteratorResult<Uint8Array>>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const pending: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => pending.push({ event: e.event, data: e.data }) });
  for (;;) {
    let chunk: IteratorResult<Uint8Array>;
    try {
      chunk = await next();
    } catch (err) {
      throw isPhaseTimeout(err) ? asFetchError(err) : err;
    }
    if (chunk.done) break;
    parser.feed(decoder.decode(chunk.value, { stream: true }));
    while (pending.length > 0) yield pending.shift()!;
  }
  parser.feed(decoder.decode() + '\n\n');
  while (pending.length > 0) yield pending.shift()!;
}
