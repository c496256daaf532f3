import { getBalance } from '../../src/core/billing/ledger';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import type { SandboxHandler } from '../../src/sandbox/types';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { accountWithToken, Instance, startInstance } from './instance';
import { waitUntil } from '../support/wait';

// /v1 non-stream: a client that leaves before the answer aborts the upstream call, and nothing is charged.

let db: TestDatabase;
let app: Instance;
const upstreamClosed: Promise<boolean>[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const fake = createOpenAiSandbox();
  const watched: SandboxHandler = (req, res) => {
    upstreamClosed.push(new Promise((resolve) => res.once('close', () => resolve(!res.writableFinished))));
    return fake(req, res);
  };
  app = await startInstance({ databaseUrl: db.url, handlers: { openai: watched } });
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

test('a client disconnect on /v1/chat/completions aborts the upstream request and releases the reservation', async () => {
  const { userId, token } = await accountWithToken(db.dataSource, app, 'vip', 300);
  const leave = new AbortController();
  const answer = fetch(`${app.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    // The fake vendor never answers this one: only an abort ends it.
    body: JSON.stringify({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hello [[fail:timeout]]' }] }),
    signal: leave.signal,
  }).catch((err: Error) => err);
  await waitUntil(() => upstreamClosed.length > 0, 5000, 'the vendor call to start');
  expect(upstreamClosed).toHaveLength(1);
  leave.abort();
  expect(((await answer) as Error).name).toBe('AbortError');

  // The vendor's connection closes before its answer is whole (the test's own time bounds the wait).
  expect(await upstreamClosed[0]).toBe(true);

  let row: { status: string; tokens_spent: number } | undefined;
  await waitUntil(
    async () => {
      [row] = await db.dataSource.query(`SELECT status, tokens_spent FROM generations WHERE user_id = $1`, [userId]);
      return row !== undefined && row.status !== 'pending';
    },
    10_000,
    'the generation to settle',
  );
  expect(row).toEqual({ status: 'failed', tokens_spent: 0 });
  expect((await getBalance(db.dataSource, userId)).total).toBe(300);
}, 30_000);
