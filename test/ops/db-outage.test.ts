import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { accountWithToken, Instance, startInstance, watchSse } from './instance';
import { eventually } from '../support/wait';

// A database outage while streams are open: every client gets its end at once, and the billing lands once the
// database is back (from the outbox under DATA_DIR), exactly once.

let db: TestDatabase;
let proxy: TcpProxy;
let app: Instance;

beforeAll(async () => {
  db = await createTestDatabase();
  const direct = new URL(db.url);
  proxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432));
  const viaProxy = new URL(db.url);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  // 150 ms between chunks: a ~5 s answer, cut by the outage in its middle.
  app = await startInstance({ databaseUrl: viaProxy.toString(), handlers: { openai: createOpenAiSandbox({ chunkDelayMs: 150 }) } });
});
afterAll(async () => {
  await app?.close();
  await proxy?.close();
  await db?.drop();
});

test('streams open during an outage all end, the probes answer 503 with Retry-After, billing lands afterwards', async () => {
  const users = await Promise.all([0, 1, 2].map(() => accountWithToken(db.dataSource, app)));
  const started = Date.now();
  const watched = users.map((u, i) =>
    watchSse(
      fetch(`${app.baseUrl}/api/v2/generate/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-6-luna', prompt: `Tell me about tides, number ${i}` }),
      }),
    ),
  );
  // Every stream is under way (its hold taken, text arriving) when the database goes.
  await Promise.all(watched.map((w) => w.seen('content_delta')));
  const streams = watched.map((w) => w.events);
  proxy.cut();

  const during = await fetch(`${app.baseUrl}/health`);
  expect(during.status).toBe(503);
  expect(during.headers.get('retry-after')).toBe('5');
  expect(((await during.json()) as { error: string }).error).toBe('service_unavailable');
  const ready = await fetch(`${app.baseUrl}/health/ready`);
  expect(ready.status).toBe(503);
  expect(((await ready.json()) as { checks: Record<string, string> }).checks.database).not.toBe('ok');
  const refused = await fetch(`${app.baseUrl}/api/v2/user/balance`, { headers: { authorization: `Bearer ${users[0].token}` } });
  expect(refused.status).toBe(503);

  const ends = await Promise.all(streams);
  const elapsed = Date.now() - started;
  expect(elapsed).toBeLessThan(15_000);
  for (const events of ends) {
    const end = events.find((e) => e.event === 'generation_end');
    expect(end).toBeDefined();
    expect(end!.data.status).toBe('completed');
    expect(end!.data.tokens_spent).toBeGreaterThan(0);
    expect(end!.data.balance).toBeNull();
  }
  expect(await app.services.outbox.pending()).toBe(3);

  await proxy.restore();
  const rows = await eventually(
    async () => {
      const found: { status: string; tokens_spent: number; user_id: number }[] = await db.dataSource.query(
        `SELECT status, tokens_spent, user_id FROM generations WHERE user_id = ANY($1) ORDER BY user_id`,
        [users.map((u) => u.userId)],
      );
      return found.length === 3 && found.every((r) => r.status === 'completed') ? found : undefined;
    },
    20_000,
    'the three deferred answers settled',
  );
  expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  for (const [i, u] of users.entries()) {
    const spent = ends[i].find((e) => e.event === 'generation_end')!.data.tokens_spent as number;
    expect(rows[i].tokens_spent).toBe(spent);
    const balance = await getBalance(db.dataSource, u.userId);
    expect(balance.total).toBe(500 - spent);
    expect(await ledgerTotals(db.dataSource, u.userId)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
    const holds = await db.dataSource.query(`SELECT status FROM token_reservations WHERE user_id = $1`, [u.userId]);
    expect(holds).toEqual([{ status: 'settled' }]);
  }
  expect(await app.services.outbox.pending()).toBe(0);
  // Replaying again changes nothing: the transitions are single-shot.
  await app.services.outbox.replay();
  expect((await getBalance(db.dataSource, users[0].userId)).total).toBe(500 - rows[0].tokens_spent);
}, 45_000);
