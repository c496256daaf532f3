import { Client } from 'pg';
import type { Counter } from 'prom-client';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { chatEarlyDispatchRefusedTotal } from '../../src/core/ops/metrics';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import type { SandboxHandler } from '../../src/sandbox/types';
import { accountWithToken, Instance, readSse, startInstance } from '../ops/instance';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { waitUntil } from '../support/wait';

// When the balance this instance last saw clearly covers a hold, the vendor call starts while the hold is still
// committing. Here the hold is kept waiting on the balance row's lock (a transaction of the test holds it) until
// the vendor request has arrived; the balance is then emptied in that transaction, so the hold is refused: the
// vendor call must be aborted at once, the client refused with 402, and nothing charged or recorded.

let db: TestDatabase;
let app: Instance;
/** One entry per vendor request: resolves true when the request was cut off before its answer finished. */
const upstream: Promise<boolean>[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const fake = createOpenAiSandbox();
  const watched: SandboxHandler = (req, res) => {
    upstream.push(new Promise((resolve) => res.once('close', () => resolve(!res.writableFinished))));
    return fake(req, res);
  };
  app = await startInstance({ databaseUrl: db.url, handlers: { openai: watched } });
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const until = (check: () => boolean, what: string): Promise<void> => waitUntil(check, 4000, what);

const ask = (token: string, content: string, stream = false) =>
  fetch(`${app.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-6-luna', messages: [{ role: 'user', content }], max_tokens: 16, stream }),
  });

/** Holds the user's balance row locked; `empty()` then takes every token away (with its ledger row) and commits. */
async function lockBalance(userId: number): Promise<{ empty: () => Promise<void> }> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT 1 FROM balances WHERE user_id = $1 FOR UPDATE', [userId]);
  return {
    empty: async () => {
      await client.query(
        `WITH b AS (SELECT plan_tokens, bonus_tokens FROM balances WHERE user_id = $1)
         INSERT INTO ledger_entries (user_id, kind, reference, plan_delta, bonus_delta)
         SELECT $1, 'adjust', 'test:empty', -plan_tokens, -bonus_tokens FROM b`,
        [userId],
      );
      await client.query('UPDATE balances SET plan_tokens = 0, bonus_tokens = 0 WHERE user_id = $1', [userId]);
      await client.query('COMMIT');
      await client.end();
    },
  };
}

const counter = async (c: Counter) => (await c.get()).values[0]?.value ?? 0;

async function rows(sql: string, params: unknown[]): Promise<number> {
  const [row] = (await db.dataSource.query(sql, params)) as { n: string }[];
  return Number(row.n);
}

test.each([false, true])(
  'a refused hold aborts the vendor call it raced, and charges nothing (stream: %s)',
  async (stream) => {
    const { userId, token } = await accountWithToken(db.dataSource, app, 'vip', 5000);
    // A first answer shows this instance the balance.
    const first = await ask(token, 'hello', stream);
    expect(first.status).toBe(200);
    if (stream) await readSse(first);
    else await first.json();
    const before = await getBalance(db.dataSource, userId);
    const generations = await rows('SELECT count(*) AS n FROM generations WHERE user_id = $1', [userId]);
    const dispatched = upstream.length;
    const refusedBefore = await counter(chatEarlyDispatchRefusedTotal);

    const lock = await lockBalance(userId);
    // The fake vendor never answers this prompt: only an abort ends its request.
    const answer = ask(token, 'hello again [[fail:timeout]]', stream);
    // The vendor request went out although the hold is still waiting on the lock.
    await until(() => upstream.length === dispatched + 1, 'the vendor call started beside the hold');
    await lock.empty();

    const refused = await answer;
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('insufficient_tokens');
    expect(await upstream[dispatched]).toBe(true);

    expect(await rows('SELECT count(*) AS n FROM generations WHERE user_id = $1', [userId])).toBe(generations);
    expect(await rows(`SELECT count(*) AS n FROM token_reservations WHERE user_id = $1 AND status = 'reserved'`, [userId])).toBe(0);
    const after = await getBalance(db.dataSource, userId);
    expect(after.total).toBe(0);
    expect(before.total).toBeGreaterThan(0);
    expect(await ledgerTotals(db.dataSource, userId)).toEqual({ plan: after.planTokens, bonus: after.bonusTokens });
    expect(await counter(chatEarlyDispatchRefusedTotal)).toBe(refusedBefore + 1);
  },
  30_000,
);
