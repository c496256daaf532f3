import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentFetch } from '../../src/core/providers/agent-fetch';

let server: http.Server;
let base: string;
const seen: { method?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      seen.push({ method: req.method, headers: req.headers, body });
      if (req.url === '/json') {
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'abc' });
        res.end(JSON.stringify({ echo: body }));
      } else if (req.url === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < 3; i++) {
          res.write(`data: ${i}\n\n`);
          await new Promise((r) => setTimeout(r, 80));
        }
        res.end('data: [DONE]\n\n');
      } else if (req.url === '/hang') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
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

test('answers like fetch: status, headers, JSON body; sends method, headers and body', async () => {
  const res = await agentFetch(`${base}/json`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: '{"a":1}' });
  expect(res.status).toBe(201);
  expect(res.ok).toBe(true);
  expect(res.headers.get('x-request-id')).toBe('abc');
  const copy = res.clone();
  expect(await res.json()).toEqual({ echo: '{"a":1}' });
  await expect(res.text()).rejects.toThrow(/already been read/);
  expect(Buffer.from(await copy.arrayBuffer()).toString()).toBe('{"echo":"{\\"a\\":1}"}');
  const last = seen[seen.length - 1];
  expect(last).toMatchObject({ method: 'POST', body: '{"a":1}' });
  expect(last.headers.authorization).toBe('Bearer k');
  expect((await agentFetch(`${base}/empty`)).status).toBe(204);
});

test('an event stream is delivered as it arrives, not after the end', async () => {
  const res = await agentFetch(`${base}/sse`);
  const reader = res.body!.getReader();
  const start = Date.now();
  const first = await reader.read();
  const firstAt = Date.now() - start;
  let rest = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  expect(new TextDecoder().decode(first.value)).toContain('data: 0');
  expect(firstAt).toBeLessThan(60);
  expect(rest).toContain('[DONE]');
});

test('aborting the signal ends a stream in progress; a dead port fails like fetch', async () => {
  const controller = new AbortController();
  const res = await agentFetch(`${base}/hang`, { signal: controller.signal });
  const reader = res.body!.getReader();
  await reader.read();
  controller.abort();
  await expect(reader.read()).rejects.toBeDefined();
  await expect(agentFetch('http://127.0.0.1:1/x')).rejects.toThrow(/fetch failed/);
  await expect(agentFetch(`${base}/json`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
});

test('bodies it does not encode itself (FormData) go through the global fetch', async () => {
  const form = new FormData();
  form.append('file', new Blob(['abc']), 'a.txt');
  const res = await agentFetch(`${base}/json`, { method: 'POST', body: form });
  expect(res.status).toBe(201);
  expect(seen[seen.length - 1].headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
});
