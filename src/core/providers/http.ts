import { ProviderConnection, ProviderError, ProviderErrorKind, ProviderName } from './types';

export interface UpstreamRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  /** A plain object is sent as JSON; FormData and Buffer are sent as they are. */
  body?: unknown;
  signal?: AbortSignal;
}

/** Maps an HTTP status (and the vendor's error text) to the kind of failure the pipeline acts on. */
export function classifyStatus(status: number, message = ''): ProviderErrorKind {
  if (status === 429 || status === 503 || status === 529 || status === 502) return 'overloaded';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 401 || status === 403) return /policy|safety|moderat/i.test(message) ? 'content_policy' : 'auth';
  if (status === 400 || status === 404 || status === 409 || status === 413 || status === 415 || status === 422) {
    return /content.?policy|safety|moderat|nsfw|flagged/i.test(message) ? 'content_policy' : 'bad_request';
  }
  return 'upstream';
}

/**
 * The timeout covers the wait for the response head only: a stream may then run as long as the vendor keeps
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

/** Sends one request to the vendor; non-2xx answers become a classified ProviderError. */
export async function upstreamFetch(
  provider: ProviderName,
  conn: ProviderConnection,
  req: UpstreamRequest,
): Promise<Response> {
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  let body: RequestInit['body'];
  if (req.body instanceof FormData || req.body instanceof Uint8Array || typeof req.body === 'string') {
    body = req.body as RequestInit['body'];
  } else if (req.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(req.body);
  }
  const url = /^https?:\/\//.test(req.path) ? req.path : conn.baseUrl + req.path;
  let res: Response;
  const timeout = headTimeout(conn.timeoutMs, req.signal);
  try {
    res = await conn.fetch(url, {
      method: req.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      signal: timeout.signal,
    });
  } catch (err) {
    const e = err as Error;
    if (req.signal?.aborted) throw err;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') {
      throw new ProviderError('timeout', `${provider} did not answer in time`, provider);
    }
    throw new ProviderError('overloaded', `${provider} could not be reached: ${e.message}`, provider);
  } finally {
    timeout.clear();
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    const message = vendorErrorMessage(parsed, text.slice(0, 300) || `HTTP ${res.status}`);
    throw new ProviderError(classifyStatus(res.status, message), message, provider, res.status);
  }
  return res;
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
  let data: Buffer;
  try {
    data = Buffer.from(await res.arrayBuffer());
  } catch (err) {
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

/** Parses a text/event-stream body into events, as they arrive. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r?\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(buffer[newline] === '\r' ? newline + 2 : newline + 1);
        if (line === '') {
          if (data.length > 0) yield { event, data: data.join('\n') };
          event = undefined;
          data = [];
        } else if (line.startsWith(':')) {
          continue;
        } else {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
      }
    }
    if (data.length > 0) yield { event, data: data.join('\n') };
  } finally {
    reader.releaseLock();
  }
}
