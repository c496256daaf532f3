import http from 'node:http';
import { Client } from 'pg';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import type { SandboxHandler } from '../../src/sandbox/types';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { eventually } from '../support/wait';
import { Instance, startInstance } from './instance';

// A client that leaves while its hold is held back (the test locks the balance row) is seen before the vendor
// call: the vendor is not called, nothing is charged, the hold is given back. On every chat surface.

let db: TestDatabase;
let app: Instance;
let vendorCalls = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  const fake = createOpenAiSandbox();
  const counting: SandboxHandler = (req, res) => {
    if (req.method === 'POST') vendorCalls += 1;
    return fake(req, res);
  };
  app = await startInstance({ databaseUrl: db.url, handlers: { openai: counting } });
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const ask = 'Tell me about tides';
const cases: { name: string; path: string; body: Record<string, unknown> }[] = [
  {
    name: '/v1/chat/completions',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: ask }] },
  },
  {
    name: '/v1/chat/completions (stream)',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: ask }] },
  },
  { name: '/v1/responses (stream)', path: '/v1/responses', body: { model: 'gpt-4o-mini', stream: true, input: ask } },
  {
    name: '/v1/messages (stream)',
    path: '/v1/messages',
    body: { model: 'gpt-4o-mini', max_tokens: 256, stream: true, messages: [{ role: 'user', content: ask }] },
  },
  { name: '/api/v2/generate/stream', path: '/api/v2/generate/stream', body: { model: 'gpt-4o-mini', prompt: ask } },
];

/** A request on a connection of its own (no keep-alive), so the server's open connections show when it is gone. */
function send(path: string, key: string, body: unknown): http.ClientRequest {
  const url = new URL(path, app.baseUrl);
  const req = http.request(url, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
  });
  req.on('error', () => undefined);
  req.end(JSON.stringify(body));
  return req;
}

test.each(cases)('$name: gone while the hold waits → vendor not called, nothing charged, hold released', async ({ path, body }) => {
  const user = await createUser(db.dataSource, new PlanDirectory(db.dataSource), {
    name: 'gone',
    plan: 'vip',
    planTokens: 500,
    bonusTokens: 0,
  });
  const { key } = await app.services.createApiKey(user.id, 'gone');
  const callsBefore = vendorCalls;

  const locker = new Client({ connectionString: db.url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM balances WHERE user_id = $1 FOR UPDATE', [user.id]);
    const req = send(path, key, body);
    // The hold statement is now waiting for the balance row (asked outside the transaction: inside it, the
    // activity view would be the snapshot of its first read).
    await eventually(async () => {
      const waiting = await db.dataSource.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return waiting.length > 0 ? true : undefined;
    });
    req.destroy();
    await eventually(async () => ((await app.connections()) === 0 ? true : undefined), 5000, 'the server saw the client leave');
    await locker.query('COMMIT');
  } finally {
    await locker.end();
  }

  // The hold was taken, then withdrawn in full: a release in the ledger, no generation left.
  await eventually(async () => {
    const rows = await db.dataSource.query(`SELECT status FROM token_reservations WHERE user_id = $1`, [user.id]);
    return rows.length === 1 && rows[0].status === 'released' ? true : undefined;
  });
  expect(await db.dataSource.query(`SELECT id FROM generations WHERE user_id = $1`, [user.id])).toEqual([]);
  expect(vendorCalls).toBe(callsBefore);
  const balance = await getBalance(db.dataSource, user.id);
  expect(balance.total).toBe(500);
  expect(await ledgerTotals(db.dataSource, user.id)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
});

test('the same request from a client that stays is answered (the vendor is called once)', async () => {
  const user = await createUser(db.dataSource, new PlanDirectory(db.dataSource), {
    name: 'stays',
    plan: 'vip',
    planTokens: 500,
    bonusTokens: 0,
  });
  const { key } = await app.services.createApiKey(user.id, 'stays');
  const before = vendorCalls;
  const res = await fetch(`${app.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(cases[0].body),
  });
  expect(res.status).toBe(200);
  expect(vendorCalls).toBe(before + 1);
});
