import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { accountWithToken, Instance, readSse, startInstance } from '../ops/instance';
import { createTestDatabase, TestDatabase } from '../support/databases';

// Issue 34, finding 5: an account past its hourly limit sent 100 requests; all got 429, and the vendor received all
// 100 prompts (400 KB each), because the vendor call started beside the rate check (early dispatch). A request
// refused by any limit (plan, hourly/daily, key budget, model list) must never reach the vendor, not even in part.

let db: TestDatabase;
let app: Instance;
let proxy: http.Server;
/** The start (up to 4 kB) of every request body that reached the vendor, even one cut off mid-upload. */
const received: string[] = [];

/** The vendor as the service sees it: records each request as its first bytes arrive, then hands it to the fake. */
function recordingVendor(target: () => string): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    let head = '';
    let recorded = false;
    const record = () => {
      if (!recorded) received.push(head);
      recorded = true;
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      chunks.push(c);
      if (head.length < 4096) head += c.toString('utf8').slice(0, 4096 - head.length);
      if (head.length >= 4096) record();
    });
    req.on('close', record);
    req.on('end', () => {
      record();
      const upstream = http.request(`${target()}${req.url ?? ''}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

beforeAll(async () => {
  db = await createTestDatabase();
  let sandboxOpenAi = '';
  const vendor = await recordingVendor(() => sandboxOpenAi);
  proxy = vendor.server;
  app = await startInstance({ databaseUrl: db.url, env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${vendor.url}/v1` } });
  sandboxOpenAi = app.sandbox.mountUrl('openai');
  await db.dataSource.query(`UPDATE plans SET rate_limit_hourly = 3, rate_limit_daily = 0 WHERE slug = 'vip'`);
  app.services.plans.invalidate();
});
afterAll(async () => {
  await app?.close();
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await db?.drop();
});

const ask = (token: string, content: string, stream: boolean, model = 'gpt-6-luna') =>
  fetch(`${app.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: 16, stream }),
  });

test.each([false, true])('requests past the hourly limit get 429 and none of them reaches the vendor (stream: %s)', async (stream) => {
  const { token } = await accountWithToken(db.dataSource, app, 'vip', 100_000);
  const tag = `acct-${stream ? 's' : 'c'}-${Date.now()}`;
  // Within the limit: answered (and the instance now knows the balance covers a hold: early dispatch applies).
  for (let i = 0; i < 3; i++) {
    const res = await ask(token, `${tag} within ${i}`, stream);
    expect(res.status).toBe(200);
    if (stream) await readSse(res);
    else await res.json();
  }
  const big = 'x'.repeat(100_000);
  const refused = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(token, `${tag} over ${i} ${big}`, stream)));
  for (const res of refused) {
    expect(res.status).toBe(429);
    await res.text();
  }
  // One more answered request (another account) proves the vendor is reachable, and sees everything sent before it.
  const other = await accountWithToken(db.dataSource, app, 'vip', 100_000);
  const probe = await ask(other.token, `${tag} probe`, false);
  expect(probe.status).toBe(200);
  await probe.json();
  const mine = received.filter((p) => p.includes(tag));
  expect(mine.filter((p) => p.includes(' over '))).toEqual([]);
  expect(mine).toHaveLength(4);
});

test('a model outside the plan or the key’s list never reaches the vendor', async () => {
  const starter = await accountWithToken(db.dataSource, app, 'free', 100_000);
  const before = received.length;
  const res = await ask(starter.token, 'plan check', false, 'gpt-6.1-sol');
  expect(res.status).toBe(403);
  await res.text();
  expect(received.slice(before).filter((p) => p.includes('plan check'))).toEqual([]);
});
