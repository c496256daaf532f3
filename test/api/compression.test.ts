import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { request } from 'undici';
import { ensureWebBuild } from '../web/support/browser';
import { ApiHarness, startApi } from './harness';

// Assets and JSON over 1 KB go out compressed when the client accepts it; small answers and event streams do not.

let api: ApiHarness;

beforeAll(async () => {
  ensureWebBuild();
  api = await startApi();
});
afterAll(() => api.close());

async function get(urlPath: string, encoding: string, init: { method?: 'GET' | 'POST'; token?: string; body?: unknown } = {}) {
  const res = await request(`${api.baseUrl}${urlPath}`, {
    method: init.method ?? 'GET',
    headers: {
      'accept-encoding': encoding,
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  const raw = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, encoding: res.headers['content-encoding'], vary: String(res.headers.vary ?? ''), raw };
}

const decode = (raw: Buffer, encoding: string | string[] | undefined) =>
  encoding === 'br' ? zlib.brotliDecompressSync(raw) : encoding === 'gzip' ? zlib.gunzipSync(raw) : raw;

test('a JavaScript asset: br when accepted, else gzip, else as is; the same bytes once decoded', async () => {
  const index = fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'web', 'index.html'), 'utf8');
  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(index)![1];
  const plain = await get(asset, 'identity');
  expect(plain.encoding).toBeUndefined();
  const br = await get(asset, 'gzip, deflate, br');
  expect(br.encoding).toBe('br');
  expect(br.vary).toMatch(/accept-encoding/i);
  expect(br.raw.length).toBeLessThan(plain.raw.length / 2);
  expect(decode(br.raw, br.encoding).equals(plain.raw)).toBe(true);
  const gzip = await get(asset, 'gzip');
  expect(gzip.encoding).toBe('gzip');
  expect(decode(gzip.raw, gzip.encoding).equals(plain.raw)).toBe(true);
});

test('JSON over 1 KB is compressed, a small answer is not, an event stream never is', async () => {
  const account = await api.account('pro', { planTokens: 1000 });
  const token = await api.accessToken(account);
  const big = await get('/api/v2/models', 'br', { token });
  expect(big.status).toBe(200);
  expect(big.encoding).toBe('br');
  const models = JSON.parse(decode(big.raw, big.encoding).toString('utf8'));
  expect(models.models.length).toBeGreaterThan(10);

  const small = await get('/api/v2/user/balance', 'br, gzip', { token });
  expect(small.status).toBe(200);
  expect(small.raw.length).toBeLessThan(1024);
  expect(small.encoding).toBeUndefined();

  const stream = await get('/api/v2/generate/stream', 'br, gzip', {
    method: 'POST',
    token,
    body: { model: 'gpt-6-luna', prompt: 'tell me a long story' },
  });
  expect(stream.status).toBe(200);
  expect(stream.encoding).toBeUndefined();
  expect(stream.raw.toString('utf8')).toContain('event: generation_end');
});
