import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readSseResponse, upstreamBytes, upstreamJson } from '../../src/core/providers/http';
import { statusFaults } from '../../src/core/providers/faults';
import { createVendorFetch } from '../../src/core/providers/transport/vendor-fetch';
import { ProviderConnection, ProviderError } from '../../src/core/providers/types';

// The vendor HTTP client on undici: fetch-shaped answers, redirects, per-phase timeouts, a body cap, keep-alive.

let server: http.Server;
let base: string;
const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string; socket: number }[] = [];
const sockets = new WeakMap<object, number>();
let socketCount = 0;
/** Lets the /sse answer go on past its first event. */
let releaseSse: () => void = () => undefined;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (!sockets.has(req.socket)) sockets.set(req.socket, ++socketCount);
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body, socket: sockets.get(req.socket)! });
      const path = req.url ?? '/';
      if (path === '/json') {
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'abc' });
        res.end(JSON.stringify({ echo: body }));
      } else if (path === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < 3; i++) {
          res.write(`data: ${i}\n\n`);
          await new Promise((r) => setTimeout(r, 80));
        }
        res.end('data: [DONE]\n\n');
      } else if (path === '/sse-gated') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 0\n\n');
        // The rest waits until the client has read the first event: it cannot have arrived with the end.
        await new Promise<void>((r) => (releaseSse = r));
        res.end('data: 1\n\ndata: [DONE]\n\n');
      } else if (path === '/sse-stall') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n'); // then silence
      } else if (path === '/head-stall') {
        // never answers
      } else if (path === '/moved') {
        res.writeHead(302, { location: '/final?x=1' });
        res.end();
      } else if (path === '/final?x=1') {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.end(Buffer.alloc(100, 7));
      } else if (path === '/loop') {
        res.writeHead(302, { location: '/loop' });
        res.end();
      } else if (path === '/big-declared') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 5000 });
        res.end(Buffer.alloc(5000));
      } else if (path === '/big-chunked') {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 10; i++) res.write(Buffer.alloc(500, 32));
        res.end();
      } else {
        res.writeHead(204);
        res.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  seen.length = 0;
});

const client = createVendorFetch({ connectTimeoutMs: 1000, headersTimeoutMs: 300, bodyIdleTimeoutMs: 300, maxResponseBytes: 2000 });

function conn(overrides: Partial<ProviderConnection> = {}): ProviderConnection {
  return { apiKey: 'k', baseUrl: base, sandbox: true, fetch: client, timeoutMs: 300, faults: statusFaults, ...overrides };
}

test('answers like fetch: status, headers, JSON body, clone; sends method, headers and body', async () => {
  const res = await client(`${base}/json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: '{"a":1}',
  });
  expect(res.status).toBe(201);
  expect(res.ok).toBe(true);
  expect(res.headers.get('x-request-id')).toBe('abc');
  const copy = res.clone();
  expect(await res.json()).toEqual({ echo: '{"a":1}' });
  await expect(res.text()).rejects.toThrow(/already been read/);
  expect(Buffer.from(await copy.arrayBuffer()).toString()).toBe('{"echo":"{\\"a\\":1}"}');
  expect(seen[0]).toMatchObject({ method: 'POST', body: '{"a":1}' });
  expect(seen[0].headers.authorization).toBe('Bearer k');
  expect((await client(`${base}/empty`)).status).toBe(204);
});

test('reuses keep-alive connections per origin instead of opening one per call', async () => {
  for (let i = 0; i < 6; i++) await (await client(`${base}/json`, { method: 'POST', body: 'x' })).text();
  expect(new Set(seen.map((s) => s.socket)).size).toBeLessThanOrEqual(2);
});

test('multipart FormData is encoded with its boundary', async () => {
  const form = new FormData();
  form.append('model', 'whisper-1');
  form.append('file', new Blob([Buffer.from('RIFF')], { type: 'audio/wav' }), 'a.wav');
  await (await client(`${base}/json`, { method: 'POST', body: form })).text();
  expect(seen[0].headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
  expect(seen[0].body).toContain('name="model"');
  expect(seen[0].body).toContain('filename="a.wav"');
});

test('an event stream is delivered as it arrives, not after the end', async () => {
  const res = await client(`${base}/sse-gated`);
  const reader = res.body!.getReader();
  const first = await reader.read();
  releaseSse();
  let rest = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  expect(new TextDecoder().decode(first.value)).toContain('data: 0');
  expect(rest).toContain('[DONE]');
});

test('the SSE reader reads the Node stream under the answer; the fetch-shaped body still works when asked for first', async () => {
  const events: string[] = [];
  for await (const e of readSseResponse(await client(`${base}/sse`))) events.push(e.data);
  expect(events).toEqual(['0', '1', '2', '[DONE]']);
  const stalled = readSseResponse(await client(`${base}/sse-stall`));
  expect((await stalled.next()).value).toMatchObject({ data: 'first' });
  await expect(stalled.next()).rejects.toMatchObject({ name: 'TimeoutError' });
  // A caller that took `body` (a WHATWG stream) first owns the bytes: the reader goes through it.
  const res = await client(`${base}/sse`);
  expect(res.body).toBeInstanceOf(ReadableStream);
  const viaWeb: string[] = [];
  for await (const e of readSseResponse(res)) viaWeb.push(e.data);
  expect(viaWeb).toEqual(['0', '1', '2', '[DONE]']);
});

test('redirects are followed to the final body', async () => {
  const res = await client(`${base}/moved`);
  expect(res.status).toBe(200);
  expect(Buffer.from(await res.arrayBuffer())).toHaveLength(100);
  expect(seen.map((s) => s.url)).toEqual(['/moved', '/final?x=1']);
});

test('a redirect loop ends after the redirect limit with a classified error, not forever', async () => {
  const err = await upstreamBytes('google', conn({ maxAttempts: 1 }), { path: '/loop' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ProviderError);
  expect(seen.length).toBeLessThanOrEqual(6);
});

test('an oversized vendor body is refused: declared or streamed past the cap', async () => {
  await expect(client(`${base}/big-declared`)).rejects.toMatchObject({ name: 'ResponseTooLargeError' });
  await expect(client(`${base}/big-chunked`)).rejects.toMatchObject({ name: 'ResponseTooLargeError' });
  const err = await upstreamJson('openai', conn(), { path: '/big-chunked' }).catch((e: unknown) => e);
  expect(err).toMatchObject({ kind: 'upstream', message: expect.stringMatching(/larger than 2000 bytes/) });
  // A per-connection cap applies even through a foreign fetch (a stub or the global fetch).
  const viaGlobal = await upstreamBytes('openai', conn({ fetch, maxResponseBytes: 1000 }), { path: '/big-declared' }).catch(
    (e: unknown) => e,
  );
  expect(viaGlobal).toMatchObject({ kind: 'upstream', message: expect.stringMatching(/larger than 1000 bytes/) });
});

test('a vendor that never sends its response head times out in the head phase', async () => {
  const err = await upstreamJson('openai', conn(), { path: '/head-stall' }).catch((e: unknown) => e);
  expect(err).toMatchObject({ kind: 'timeout' });
  expect(seen).toHaveLength(1); // a timeout is not retried: the vendor may still be working on it
});

test('a stream that goes silent ends with a TimeoutError after the idle-chunk timeout', async () => {
  const res = await client(`${base}/sse-stall`);
  const reader = res.body!.getReader();
  await reader.read();
  const err = await reader.read().catch((e: unknown) => e);
  expect((err as { code?: string }).code).toBe('UND_ERR_BODY_TIMEOUT');
});

test('aborting the signal ends a stream in progress; a dead port fails like fetch', async () => {
  const controller = new AbortController();
  const res = await client(`${base}/sse-stall`, { signal: controller.signal });
  const reader = res.body!.getReader();
  await reader.read();
  controller.abort();
  await expect(reader.read()).rejects.toBeDefined();
  await expect(client('http://127.0.0.1:1/x')).rejects.toThrow(/fetch failed/);
  await expect(client(`${base}/json`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
});
