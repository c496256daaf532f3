import crypto from 'node:crypto';
import fs from 'node:fs';
import { hashPassword } from '../../src/core/accounts/passwords';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { eventually } from '../support/wait';
import { watchSse } from './instance';
import { buildOnce, ServiceProcess, startServiceProcess, tempDir } from './service-process';

// Issue 34, finding 7: a stream recorded what it had delivered every 2 s, so a process killed in a stream's first
// 2 s billed nothing for what the client had already received (15 of 15 delivering streams free at 0.8 s). The
// first output's length now goes to the lease as it goes to the client.

let db: TestDatabase;
let dataDir: string;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  buildOnce();
  db = await createTestDatabase();
  dataDir = tempDir('ng-first-delta-');
});
afterAll(async () => {
  for (const p of running) p.child.kill('SIGKILL');
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('kill -9 right after a stream’s first piece reached the client: the restart bills what was delivered', async () => {
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir, SANDBOX_CHUNK_DELAY_MS: '250' };
  const first = await startServiceProcess(env);
  running.push(first);
  const email = `first-delta-${crypto.randomBytes(4).toString('hex')}@example.com`;
  const user = await createUser(db.dataSource, new PlanDirectory(db.dataSource), {
    name: 'Streamer',
    email,
    passwordHash: await hashPassword('first-delta-password'),
    plan: 'vip',
    planTokens: 500,
    bonusTokens: 0,
  });
  const login = await fetch(`${first.baseUrl}/api/v2/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'first-delta-password' }),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };

  const stream = watchSse(
    fetch(`${first.baseUrl}/api/v2/generate/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-6-luna', prompt: 'Tell me about tides' }),
    }),
  );
  await stream.seen('content_delta');
  // The first piece's length reaches the lease beside the bytes (not awaited); kill once it is there, well inside
  // the old 2 s heartbeat: the second piece is still 250 ms away.
  await eventually(async () => {
    const [lease] = await db.dataSource.query(
      'SELECT l.delivered_chars FROM generation_leases l JOIN generations g ON g.id = l.generation_id WHERE g.user_id = $1',
      [user.id],
    );
    return lease && lease.delivered_chars > 0 ? true : undefined;
  }, 5_000);
  first.child.kill('SIGKILL');
  await first.exited;
  await stream.events.catch(() => undefined);

  const second = await startServiceProcess(env);
  running.push(second);
  const row = await eventually(async () => {
    const [g] = await db.dataSource.query('SELECT status, tokens_spent FROM generations WHERE user_id = $1', [user.id]);
    return g && g.status !== 'pending' ? g : undefined;
  }, 20_000);
  expect(row.status).toBe('completed');
  expect(row.tokens_spent).toBeGreaterThan(0);
  const balance = await getBalance(db.dataSource, user.id);
  expect(balance.total).toBe(500 - row.tokens_spent);
  expect(await ledgerTotals(db.dataSource, user.id)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
}, 60_000);
