// Surfaces: /metrics behind METRICS_TOKEN or on METRICS_PORT only; security headers on every answer.
import type { AddressInfo } from 'node:net';
import { createMetricsServer } from '../../src/api/metrics';
import { ApiHarness, startApi } from './harness';

const TOKEN = 'metrics-token-0123456789abcdef';
let open: ApiHarness;
let guarded: ApiHarness;

beforeAll(async () => {
  open = await startApi({ PUBLIC_URL: 'https://gen.example.com' });
  guarded = await startApi({ METRICS_TOKEN: TOKEN });
});
afterAll(async () => {
  await open.close();
  await guarded.close();
});

test('without METRICS_TOKEN, /metrics is not served on the public port', async () => {
  expect((await fetch(`${open.baseUrl}/metrics`)).status).toBe(404);
  expect((await fetch(`${open.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
});

test('with METRICS_TOKEN, /metrics needs it as a Bearer token', async () => {
  expect((await fetch(`${guarded.baseUrl}/metrics`)).status).toBe(401);
  expect((await fetch(`${guarded.baseUrl}/metrics`, { headers: { Authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
  await guarded.request('GET', '/health');
  const res = await fetch(`${guarded.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toMatch(/^http_requests_total\{surface="other",status="200"\} \d+/m);
  expect(text).toMatch(/process_resident_memory_bytes/);
});

test('METRICS_PORT: a listener of its own serves /metrics and nothing else', async () => {
  const server = createMetricsServer({});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/http_requests_total/);
    expect((await fetch(`${base}/api/v2/models`)).status).toBe(404);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('every answer carries nosniff, no-referrer and a deny-all CSP; HSTS when PUBLIC_URL is https', async () => {
  for (const path of ['/health', '/api/v2/models', '/api/v2/nope', '/v1/models', '/files/%']) {
    const res = await open.request('GET', path);
    expect([path, res.headers.get('x-content-type-options')]).toEqual([path, 'nosniff']);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
  }
  expect((await guarded.request('GET', '/health')).headers.get('strict-transport-security')).toBeNull();
});
