import http from 'node:http';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import type { SandboxHandler } from '../../src/sandbox/types';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { eventually } from '../support/wait';
import { accountWithToken, Instance, startInstance } from './instance';

// Issue 34, finding 10: with PROVIDER_CONCURRENCY=1, a generate waiting behind another for the vendor whose client
// left was still sent to the vendor and charged (6 tokens, an image). A client that leaves before its call goes out
// costs nothing and the vendor never sees it, on every route that runs a media model.

let db: TestDatabase;
let app: Instance;
/** Image requests the vendor received. */
let imageCalls = 0;
/** Holds the vendor's answers until released. */
let release: () => void = () => undefined;
let held = new Promise<void>((r) => (release = r));

beforeAll(async () => {
  db = await createTestDatabase();
  const fake = createOpenAiSandbox();
  const slow: SandboxHandler = async (req, res) => {
    if (req.method === 'POST' && req.path.includes('/images/')) {
      imageCalls += 1;
      await held;
    }
    return fake(req, res);
  };
  app = await startInstance({ databaseUrl: db.url, env: { PROVIDER_CONCURRENCY: '1' }, handlers: { openai: slow } });
});
afterAll(async () => {
  release();
  await app?.close();
  await db?.drop();
});

const image = { model: 'gpt-image-2.6-flare', prompt: 'a lighthouse at dusk' };

/** A request on a connection of its own, so destroying it is the client leaving. */
function send(path: string, token: string, body: unknown): { req: http.ClientRequest; done: Promise<number> } {
  const url = new URL(path, app.baseUrl);
  let req!: http.ClientRequest;
  const done = new Promise<number>((resolve) => {
    req = http.request(
      url,
      { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(-1));
    req.end(JSON.stringify(body));
  });
  return { req, done };
}

const pendingOf = async (userId: number) =>
  (await db.dataSource.query(`SELECT count(*)::int AS n FROM generations WHERE user_id = $1 AND status = 'pending'`, [userId]))[0].n;

test.each([
  ['/api/v2/generate', image],
  ['/v1/images/generations', { ...image, response_format: 'url' }],
])('%s: a client that leaves while its call waits for the vendor costs nothing, and the vendor never sees it', async (path, body) => {
  held = new Promise<void>((r) => (release = r));
  imageCalls = 0;
  const first = await accountWithToken(db.dataSource, app, 'vip', 5000);
  const second = await accountWithToken(db.dataSource, app, 'vip', 5000);

  // The first takes the only slot and waits at the vendor.
  const running = send(path, first.token, body);
  await eventually(() => (imageCalls === 1 ? true : undefined), 10_000, 'the first call at the vendor');
  // The second is admitted, holds its tokens and waits for the slot; then its client leaves.
  const queued = send(path, second.token, body);
  await eventually(async () => ((await pendingOf(second.userId)) === 1 ? true : undefined), 10_000, 'the second call held and queued');
  queued.req.destroy();
  expect(await queued.done).toBe(-1);

  release();
  expect(await running.done).toBe(200);
  // The slot went to the second call, which found its client gone: no vendor call, no charge, no history.
  await eventually(async () => ((await pendingOf(second.userId)) === 0 ? true : undefined), 10_000, 'the second call withdrawn');
  expect(imageCalls).toBe(1);
  const balance = await getBalance(db.dataSource, second.userId);
  expect(balance.total).toBe(5000);
  expect(await ledgerTotals(db.dataSource, second.userId)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
  const rows = await db.dataSource.query('SELECT status FROM generations WHERE user_id = $1', [second.userId]);
  expect(rows).toEqual([]);
});
