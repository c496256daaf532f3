// X-Forwarded-For is believed only from proxies named in TRUST_PROXY. Unset, a client that sends a fresh
// forwarded address on every request still lands in one per-IP bucket: its socket address.
import { TrustedProxies } from '../../src/core/net/trusted-proxies';
import { ApiHarness, avoidWindowEdge, expectErrorShape, randomIp, startApi } from './harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ TRUST_PROXY: '' });
});
afterAll(() => api.close());

test('TRUST_PROXY unset: an X-Forwarded-For flood still hits the per-IP login limit', async () => {
  await avoidWindowEdge(60);
  const body = { email: 'nobody@example.com', password: 'wrong' };
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) statuses.push((await api.request('POST', '/api/v2/auth/login', { body, ip: randomIp() })).status);
  expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
  expect(statuses.slice(10)).toEqual(Array(20).fill(429));
  expectErrorShape(await api.request('POST', '/api/v2/auth/register', { body: { email: 'x', password: 'y' }, ip: randomIp() }), 400);
});

test('TRUST_PROXY unset: the registration limit holds against a forwarded-address flood', async () => {
  await avoidWindowEdge(60);
  let created = 0;
  for (let i = 0; i < 14; i++) {
    const res = await api.request('POST', '/api/v2/auth/register', {
      body: { email: `flood${i}@example.com`, password: 'long enough' },
      ip: randomIp(),
    });
    if (res.status === 201) created++;
  }
  // Ten per minute per address; the earlier test used one of them (the 400 above).
  expect(created).toBeLessThanOrEqual(10);
  expect(created).toBeGreaterThan(0);
});

describe('TrustedProxies', () => {
  test('walks X-Forwarded-For from the right past trusted hops only', () => {
    const t = TrustedProxies.parse('loopback, 10.0.0.0/8');
    expect(t.clientAddress('127.0.0.1', '203.0.113.7, 10.1.2.3')).toBe('203.0.113.7');
    expect(t.clientAddress('::ffff:127.0.0.1', '6.6.6.6, 203.0.113.7')).toBe('203.0.113.7');
    expect(t.clientAddress('198.51.100.1', '203.0.113.7')).toBe('198.51.100.1');
    expect(t.clientAddress('127.0.0.1', 'not-an-ip')).toBe('127.0.0.1');
    expect(TrustedProxies.none.clientAddress('127.0.0.1', '203.0.113.7')).toBe('127.0.0.1');
    expect(() => TrustedProxies.parse('10.0.0.0/99')).toThrow(/CIDR/);
    expect(() => TrustedProxies.parse('proxy.example')).toThrow(/loopback/);
  });
});
