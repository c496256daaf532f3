import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { accountWithToken, Instance, readSse, startInstance, watchSse } from '../ops/instance';
import { createTestDatabase, TestDatabase } from '../support/databases';

// Issue 42: a request queued behind a vendor's connection pool waited without bound (streams got a 200 head and
// nothing for minutes). Now the wait counts in the upstream timeout: it gets its answer or a 503 with Retry-After
// within it, nothing charged. Each vendor has a pool of its own, the sandbox's too.

const TIMEOUT_MS = 700;
let db: TestDatabase;
let app: Instance;

beforeAll(async () => {
  db = await createTestDatabase();
  // A slow vendor: each stream chunk 250 ms after the last, so one open stream holds the only connection for seconds.
  app = await startInstance({
    databaseUrl: db.url,
    env: { VENDOR_POOL_SIZE: '1', UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) },
    handlers: { openai: createOpenAiSandbox({ chunkDelayMs: 250 }) },
  });
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const ask = (token: string, model: string, stream: boolean, content = 'Tell me a long story about the sea and its tides') =>
  fetch(`${app.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: 64, stream }),
  });

async function timed(answer: Promise<Response>): Promise<{ res: Response; ms: number }> {
  const startedAt = Date.now();
  const res = await answer;
  return { res, ms: Date.now() - startedAt };
}

test('a request behind a full vendor pool gets a 503 with Retry-After within the upstream timeout, uncharged', async () => {
  const { userId, token } = await accountWithToken(db.dataSource, app, 'vip', 100_000);
  const holder = watchSse(ask(token, 'gpt-6-luna', true));
  await holder.seen('message');
  let holderDone = false;
  void holder.events.then(() => (holderDone = true));

  const [sync, stream] = await Promise.all([timed(ask(token, 'gpt-6-luna', false)), timed(ask(token, 'gpt-6-luna', true))]);
  for (const { res, ms } of [sync, stream]) {
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('model_unavailable');
    // Refused after waiting its timeout in line, not before and not much after.
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(TIMEOUT_MS + 1500);
  }
  // The slow stream was still holding the connection: the refusals were the line's, not a vendor failure.
  expect(holderDone).toBe(false);

  // Another vendor has a pool of its own: it answers while the first one is full.
  const other = await ask(token, 'claude-haiku-4-5', false);
  expect(other.status).toBe(200);

  const held = await holder.events;
  expect(held[held.length - 1]!.data).toBe('[DONE]');
  // The connection is free again once the stream ended.
  const after = await ask(token, 'gpt-6-luna', true);
  expect(after.status).toBe(200);
  expect((await readSse(after)).at(-1)!.data).toBe('[DONE]');

  // Three answers were billed, the two refused requests not at all, and no hold was left open.
  const [{ charged, failed }] = (await db.dataSource.query(
    `SELECT count(*) FILTER (WHERE status = 'completed' AND tokens_spent > 0)::int AS charged,
            count(*) FILTER (WHERE status = 'failed' AND coalesce(tokens_spent, 0) = 0)::int AS failed
       FROM generations WHERE user_id = $1`,
    [userId],
  )) as { charged: number; failed: number }[];
  expect({ charged, failed }).toEqual({ charged: 3, failed: 2 });
  const [{ open }] = (await db.dataSource.query(
    `SELECT count(*)::int AS open FROM token_reservations WHERE user_id = $1 AND status = 'reserved'`,
    [userId],
  )) as { open: number }[];
  expect(open).toBe(0);
  const balance = await getBalance(db.dataSource, userId);
  expect(await ledgerTotals(db.dataSource, userId)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
}, 60_000);
