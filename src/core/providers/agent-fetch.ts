import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';

// Upstream calls are the hot path of every request. Node's global fetch costs several times the CPU of node:http
// per call (web streams, transferables, abort plumbing), so vendor requests go through this fetch-compatible
// client on keep-alive agents instead. Bodies it cannot encode itself (FormData, streams) go to the global fetch.

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 10_000 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 10_000 }),
};

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return { ...(headers as Record<string, string>) };
}

function responseHeaders(res: http.IncomingMessage): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}

/**
 * A whole response already in memory. It offers what callers of a vendor API use (status, headers, text, json,
 * arrayBuffer, body, clone) without the cost of a WHATWG Response, whose body reads go through web streams.
 */
class BufferedResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  bodyUsed = false;
  private cachedHeaders?: Headers;

  constructor(
    readonly status: number,
    readonly statusText: string,
    private readonly raw: http.IncomingMessage,
    private readonly data: Buffer,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  get headers(): Headers {
    return (this.cachedHeaders ??= responseHeaders(this.raw));
  }

  get body(): ReadableStream<Uint8Array> {
    return new Response(this.data).body!;
  }

  private consume(): Buffer {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.bodyUsed = true;
    return this.data;
  }

  async text(): Promise<string> {
    return this.consume().toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.consume();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(this.consume());
  }

  async blob(): Promise<Blob> {
    return new Blob([this.consume()], { type: this.raw.headers['content-type'] ?? '' });
  }

  clone(): BufferedResponse {
    return new BufferedResponse(this.status, this.statusText, this.raw, this.data, this.url);
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** `fetch` for vendor APIs on keep-alive node:http agents. Event streams are streamed; other bodies are read whole. */
export const agentFetch: typeof fetch = (input, init = {}) => {
  const body = init.body;
  const encodable = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!encodable || input instanceof Request || !(url.protocol in agents)) return fetch(input, init);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));

  return new Promise<Response>((resolve, reject) => {
    const headers = headerRecord(init.headers);
    if (body !== undefined && body !== null) headers['content-length'] = String(Buffer.byteLength(body as string | Uint8Array));
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, { method: init.method ?? 'GET', headers, agent: agents[url.protocol as 'http:' | 'https:'] });
    const onAbort = () => req.destroy(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    req.on('error', (err) => {
      done();
      reject(signal?.aborted ? abortReason(signal) : Object.assign(new TypeError('fetch failed'), { cause: err }));
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 502;
      const head: ResponseInit = { status, statusText: res.statusMessage, headers: responseHeaders(res) };
      if (status === 204 || status === 304 || init.method === 'HEAD') {
        res.resume();
        done();
        resolve(new Response(null, head));
        return;
      }
      if ((res.headers['content-type'] ?? '').includes('text/event-stream')) {
        res.on('close', done);
        resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, head));
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        done();
        resolve(new BufferedResponse(status, res.statusMessage ?? '', res, Buffer.concat(chunks), url.href) as unknown as Response);
      });
      res.on('error', (err) => {
        done();
        reject(signal?.aborted ? abortReason(signal) : Object.assign(new TypeError('fetch failed'), { cause: err }));
      });
    });
    req.end(body as string | Uint8Array | undefined);
  });
};
