import { Agent, Dispatcher, interceptors } from 'undici';
import { BufferedResponse, RawHeaders, toHeaders } from './buffered-response';
import { ConnectionSlots, isVendorPoolBusy } from './connection-slots';
import { StreamedResponse } from './streamed-response';

// The one HTTP client for vendor APIs (user-supplied URLs go through core/net's SSRF-safe fetch instead).
// It is fetch-compatible so adapters and tests can swap it, but it runs on undici's dispatcher API: keep-alive
// pools per origin, redirects followed, a timeout per phase, and a cap on buffered bodies. Event streams are
// handed over as they arrive; every other body is read whole (vendor answers are small, downloads capped).

export interface VendorFetchOptions {
  /** TCP + TLS handshake. */
  connectTimeoutMs: number;
  /** From the request written to the response head. */
  headersTimeoutMs: number;
  /** Longest silence between two body chunks: the idle timeout of streams, the stall timeout of downloads. */
  bodyIdleTimeoutMs: number;
  /** Largest body read into memory (streams are not buffered, so not capped). */
  maxResponseBytes: number;
  maxRedirections?: number;
  /**
   * Connections open at once (VENDOR_POOL_SIZE); a request beyond them waits in line, and that wait counts in its
   * head timeout: no slot before the timeout, and it fails with VendorPoolBusyError.
   */
  connections?: number;
}

/** Per-request overrides a caller may add to the fetch init (ignored by any other fetch). */
export interface VendorInit extends RequestInit {
  headersTimeoutMs?: number;
  bodyIdleTimeoutMs?: number;
  maxResponseBytes?: number;
}

export type VendorFetch = typeof fetch & {
  /** Marks a fetch that enforces the phase timeouts itself, so callers need no timer of their own. */
  readonly phaseTimeouts: true;
};

/** Stays inside the providers: the HTTP layer turns it into an `upstream` ProviderError. */
class ResponseTooLargeError extends Error {
  constructor(
    readonly limitBytes: number,
    readonly url: string,
  ) {
    super(`the answer of ${new URL(url).host} is larger than ${limitBytes} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

export function responseTooLarge(limitBytes: number, url: string): Error {
  return new ResponseTooLargeError(limitBytes, url);
}

export function isResponseTooLarge(err: unknown): boolean {
  return err instanceof ResponseTooLargeError;
}

/** Marks a failure after the response head arrived: the vendor took the request, then the body broke off. */
class BodyBrokeOffError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

/** Whether a fetch failure happened while reading the body (the request reached the vendor). */
export function failedMidBody(err: unknown): boolean {
  return (err as { phase?: string } | null)?.phase === 'body';
}

const TIMEOUT_CODES: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'response head',
  UND_ERR_BODY_TIMEOUT: 'body (no data arrived in time)',
};

/** An undici connect, head or body-idle timeout. */
export function isPhaseTimeout(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code !== undefined && code in TIMEOUT_CODES;
}

/** undici's own errors in the shapes fetch callers know: TimeoutError, AbortError, or TypeError('fetch failed'). */
export function asFetchError(err: unknown, signal?: AbortSignal | null): Error {
  if (signal?.aborted) return abortReason(signal);
  if (err instanceof ResponseTooLargeError || isVendorPoolBusy(err)) return err;
  const code = (err as { code?: string } | null)?.code;
  if (code && TIMEOUT_CODES[code]) return new DOMException(`upstream ${TIMEOUT_CODES[code]} timeout`, 'TimeoutError');
  return Object.assign(new TypeError('fetch failed'), { cause: err });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return { ...(headers as Record<string, string>) };
}

/** Bodies undici takes as they are; FormData (speech uploads) is encoded once into bytes with its boundary. */
async function encodeBody(body: RequestInit['body'], headers: Record<string, string>): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  const encoded = new Response(body as ConstructorParameters<typeof Response>[0]);
  const type = encoded.headers.get('content-type');
  if (type && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = type;
  return new Uint8Array(await encoded.arrayBuffer());
}

async function readCapped(body: Dispatcher.ResponseData['body'], limit: number, url: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      discard(body);
      throw new ResponseTooLargeError(limit, url);
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/** Drops a body we will not read; the connection is closed rather than drained (it may be huge). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Connections per vendor when the configuration names none (VENDOR_POOL_SIZE's default). */
export const DEFAULT_CONNECTIONS = 256;

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function createVendorFetch(options: VendorFetchOptions): VendorFetch {
  const slots = new ConnectionSlots(options.connections ?? DEFAULT_CONNECTIONS);
  const dispatcher = new Agent({
    connect: { timeout: options.connectTimeoutMs },
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyIdleTimeoutMs,
    keepAliveTimeout: 10_000,
    connections: slots.size,
  }).compose(interceptors.redirect({ maxRedirections: options.maxRedirections ?? 5 }));

  const vendorFetch = async (input: string | URL | Request, init: VendorInit = {}): Promise<Response> => {
    if (input instanceof Request) return fetch(input, init);
    const url = new URL(String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw abortReason(signal);
    const headers = headerRecord(init.headers);
    const method = (init.method ?? 'GET').toUpperCase();
    const limit = init.maxResponseBytes ?? options.maxResponseBytes;
    const headTimeoutMs = init.headersTimeoutMs ?? options.headersTimeoutMs;
    const queuedAt = Date.now();
    let release: (() => void) | undefined;
    try {
      const body = await encodeBody(init.body, headers);
      release = await slots.acquire(url.origin, headTimeoutMs, signal);
      const res = await dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        signal,
        // The time in line counts: the head is due within the same timeout from when the request arrived.
        headersTimeout: Math.max(1, headTimeoutMs - (Date.now() - queuedAt)),
        bodyTimeout: init.bodyIdleTimeoutMs,
      });
      // The slot is the connection's: it frees once the body is read whole, dropped or broken off.
      res.body.once('close', release);
      const status = res.statusCode;
      const raw = res.headers as RawHeaders;
      if (status === 204 || status === 304 || method === 'HEAD') {
        await res.body.dump();
        return new Response(null, { status, headers: toHeaders(raw) });
      }
      if ((firstValue(raw['content-type']) ?? '').includes('text/event-stream')) {
        return new StreamedResponse(status, raw, res.body, url.href) as unknown as Response;
      }
      const declared = Number(firstValue(raw['content-length']));
      if (declared > limit) {
        discard(res.body);
        throw new ResponseTooLargeError(limit, url.href);
      }
      let data: Buffer;
      try {
        data = await readCapped(res.body, limit, url.href);
      } catch (err) {
        throw new BodyBrokeOffError(Object.assign(asFetchError(err, signal), { phase: 'body' }));
      }
      const redirected = (res as { context?: { history?: URL[] } }).context?.history !== undefined;
      return new BufferedResponse(status, '', raw, data, url.href, redirected) as unknown as Response;
    } catch (err) {
      release?.();
      if (err instanceof BodyBrokeOffError) throw err.cause;
      throw asFetchError(err, signal);
    }
  };
  return Object.assign(vendorFetch as typeof fetch, { phaseTimeouts: true as const });
}
