import { getBalance } from '../../src/core/billing/ledger';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import type { SandboxHandler } from '../../src/sandbox/types';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { accountWithToken, Instance, startInstance } from './instance';

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
  const deadline = Date.now() + 5000;
  while (upstreamClosed.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(upstreamClosed).toHaveLength(1);
  leave.abort();
  expect(((await answer) as Error).name).toBe('AbortError');

  const cutShort = await Promise.race([upstreamClosed[0], new Promise<string>((r) => setTimeout(() => r('still open'), 3000))]);
  expect(cutShort).toBe(true);

  let row: { status: string; tokens_spent: number } | undefined;
  while (Date.now() < deadline + 5000) {
    [row] = await db.dataSource.query(`SELECT status, tokens_spent FROM generations WHERE user_id = $1`, [userId]);
    if (row?.status !== 'pending') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(row).toEqual({ status: 'failed', tokens_spent: 0 });
  expect((await getBalance(db.dataSource, userId)).total).toBe(300);
}, 30_000);
