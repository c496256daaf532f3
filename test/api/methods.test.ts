// Methods a route does not serve (issue 26): TRACE, QUERY, PROPFIND and any other method Node's HTTP parser
// accepts answered 501 from the router; on a known path they are a 405 with `Allow` and the surface's error body,
// like a wrong method the router knows. fetch() refuses to send TRACE, so these requests go through node:http.
import http from 'node:http';
import { ApiHarness, startApi } from './harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ METRICS_TOKEN: 'metrics-token-0123456789' });
});
afterAll(() => api.close());

interface RawAnswer {
  status: number;
  allow: string | undefined;
  body: any;
}

function send(method: string, path: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${api.baseUrl}${path}`, { method, headers: { Accept: 'text/html,application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

test("Node's HTTP parser takes TRACE, QUERY and PROPFIND: they reach the app", () => {
  expect(http.METHODS).toEqual(expect.arrayContaining(['TRACE', 'QUERY', 'PROPFIND']));
});

const KNOWN: [string, string, RegExp][] = [
  ['/api/v2/user/me', 'v2', /^HEAD, GET, PATCH$/],
  ['/api/v2/keys/1', 'v2', /PATCH.*DELETE|DELETE.*PATCH/],
  ['/api/v2/openapi.json', 'v2', /GET/],
  ['/v1/chat/completions', 'v1', /^POST$/],
  ['/v1/models', 'v1', /GET/],
  ['/v1/responses', 'v1', /^POST$/],
  ['/v1/messages', 'anthropic', /^POST$/],
  ['/health/ready', 'v2', /GET/],
  ['/files/2026/01/01/abc.webp', 'v2', /^GET, HEAD$/],
  ['/metrics', 'v2', /^GET$/],
  ['/', 'v2', /^GET, HEAD$/],
  ['/history', 'v2', /^GET, HEAD$/],
];

function expectMethodNotAllowed(method: string, path: string, surface: string, allow: RegExp, res: RawAnswer): void {
  const label = `${method} ${path}`;
  expect([label, res.status]).toEqual([label, 405]);
  expect([label, res.allow]).toEqual([label, expect.stringMatching(allow)]);
  const message = `${method} is not supported here; use ${res.allow}`;
  if (surface === 'v1') {
    expect([label, res.body]).toEqual([
      label,
      { error: { message, type: 'invalid_request_error', param: null, code: 'method_not_allowed' } },
    ]);
  } else if (surface === 'anthropic') {
    expect([label, res.body]).toEqual([label, { type: 'error', error: { type: 'invalid_request_error', message } }]);
  } else {
    expect([label, res.body]).toEqual([label, { error: 'method_not_allowed', message }]);
  }
}

test.each(['TRACE', 'QUERY', 'PROPFIND'])('%s on a known path: 405 with Allow and the error body of the surface', async (method) => {
  for (const [path, surface, allow] of KNOWN) {
    expectMethodNotAllowed(method, path, surface, allow, await send(method, path));
  }
});

test('a method the router knows but the path does not take: 405 as well (DELETE, PUT, POST)', async () => {
  expectMethodNotAllowed('DELETE', '/api/v2/user/me', 'v2', /^HEAD, GET, PATCH$/, await send('DELETE', '/api/v2/user/me'));
  expectMethodNotAllowed('PUT', '/v1/messages', 'anthropic', /^POST$/, await send('PUT', '/v1/messages'));
  expectMethodNotAllowed('GET', '/v1/chat/completions', 'v1', /^POST$/, await send('GET', '/v1/chat/completions'));
  expectMethodNotAllowed('POST', '/files/2026/01/01/abc.webp', 'v2', /^GET, HEAD$/, await send('POST', '/files/2026/01/01/abc.webp'));
  expectMethodNotAllowed('DELETE', '/', 'v2', /^GET, HEAD$/, await send('DELETE', '/'));
});

test('OPTIONS names the methods of the path', async () => {
  for (const path of ['/api/v2/user/me', '/v1/messages', '/files/2026/01/01/abc.webp', '/']) {
    const res = await send('OPTIONS', path);
    expect([path, res.status, res.allow]).toEqual([path, 200, expect.stringMatching(/GET|POST/)]);
  }
});

test('an unknown path is a 404 whatever the method, never a 501', async () => {
  for (const method of ['TRACE', 'QUERY', 'PROPFIND', 'GET', 'DELETE']) {
    for (const [path, surface] of [
      ['/api/v2/nowhere', 'v2'],
      ['/v1/nowhere', 'v1'],
    ]) {
      const res = await send(method, path);
      expect([method, path, res.status, res.allow]).toEqual([method, path, 404, undefined]);
      if (method !== 'HEAD') expect(surface === 'v1' ? res.body.error.code : res.body.error).toBe('not_found');
    }
  }
});

test("a method Node's parser does not know is refused by Node itself (400, connection closed) before the app", async () => {
  expect(http.METHODS).not.toContain('BREW');
  const res = await send('BREW', '/api/v2/user/me').catch((err: Error) => err);
  // Node writes `400 Bad Request` and closes; depending on timing the client sees that answer or the closed socket.
  if (res instanceof Error) expect(res.message).toMatch(/socket hang up|ECONNRESET|Parse Error/);
  else expect(res.status).toBe(400);
  expect(api.logs.some((l) => l.includes('"BREW"'))).toBe(false);
});
