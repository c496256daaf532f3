import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { eventually } from '../support/wait';
import { accountWithToken, Instance, startInstance, watchSse } from './instance';

// Issue 34, finding 9: a stream open while its account was deleted completed for free (its generation went with the
// account, so the settlement found nothing to bill). Deleting the account now cuts its answers, on every instance,
// and bills what they delivered before the rows go.

let db: TestDatabase;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  db = await createTestDatabase();
  // ~30 pieces at 200 ms: the stream is still running when the account is deleted.
  const slow = { openai: createOpenAiSandbox({ chunkDelayMs: 200 }) };
  a = await startInstance({ databaseUrl: db.url, handlers: slow });
  b = await startInstance({ databaseUrl: db.url, handlers: slow });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

/** The net tokens the ledger took for a generation (its rows outlive the account, with the user id cleared). */
async function charged(generationId: number): Promise<number> {
  const [row] = await db.dataSource.query(
    `SELECT COALESCE(-SUM(plan_delta + bonus_delta), 0)::int AS n FROM ledger_entries WHERE reference = $1`,
    [`gen:${generationId}`],
  );
  return row.n;
}

async function openStream(on: Instance, token: string) {
  const watched = watchSse(
    fetch(`${on.baseUrl}/api/v2/generate/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-6-luna', prompt: 'Tell me about tides, at length' }),
    }),
  );
  await watched.seen('content_delta');
  return watched;
}

test.each([
  ['on the instance that deletes it', () => a],
  ['on another instance', () => b],
])('a stream open while its account is deleted is cut and billed for what it delivered (%s)', async (_, streamOn) => {
  const { userId, token } = await accountWithToken(db.dataSource, a, 'vip', 50_000);
  const stream = await openStream(streamOn(), token);

  // The account has no password (a Telegram or IdP account): deleted without one.
  await db.dataSource.query('UPDATE users SET password_hash = NULL WHERE id = $1', [userId]);
  const deleted = await fetch(`${a.baseUrl}/api/v2/user/delete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({}),
  });
  expect(deleted.status).toBe(204);

  const events = await stream.events;
  // Cut (an answer run to its end has finish_reason stop), and told so.
  const end = events.find((e) => e.event === 'generation_end');
  expect(end?.data).toMatchObject({ finish_reason: null });
  const delivered = events.filter((e) => e.event === 'content_delta').length;
  expect(delivered).toBeGreaterThan(0);
  const generationId = end!.data.generation_id as number;
  await eventually(async () => ((await charged(generationId)) > 0 ? true : undefined), 5000, 'the delivered part billed');
  expect(await db.dataSource.query('SELECT 1 FROM users WHERE id = $1', [userId])).toEqual([]);
});

test('a stream open while its account is blocked is cut on its instance and billed for what it delivered', async () => {
  const { userId, token } = await accountWithToken(db.dataSource, a, 'vip', 50_000);
  const stream = await openStream(b, token);

  // Any writer's block (the console's, the CLI's, an operator's SQL) reaches every instance on the change feed.
  await db.dataSource.query(`UPDATE users SET is_blocked = true, blocked_at = now(), blocked_reason = 'abuse' WHERE id = $1`, [userId]);

  const events = await stream.events;
  const end = events.find((e) => e.event === 'generation_end');
  expect(end?.data).toMatchObject({ finish_reason: null });
  const generationId = end!.data.generation_id as number;
  await eventually(async () => ((await charged(generationId)) > 0 ? true : undefined), 5000, 'the delivered part billed');
  const refused = await fetch(`${b.baseUrl}/api/v2/user/me`, { headers: { authorization: `Bearer ${token}` } });
  expect(refused.status).toBe(403);
});
