import crypto from 'node:crypto';
import fs from 'node:fs';
import { hashPassword } from '../../src/core/accounts/passwords';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { getBalance } from '../../src/core/billing/ledger';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { watchSse } from './instance';
import { waitUntil } from '../support/wait';
import { buildOnce, ServiceProcess, startServiceProcess, tempDir } from './service-process';

// SIGTERM: /health/ready answers 503 at once while /health/live still answers; a stream still open at the end of
// the drain is cut, billed on what it delivered, and gets its end; the process exits 0 without error logs.

let db: TestDatabase;
let dataDir: string;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  buildOnce();
  db = await createTestDatabase();
  dataDir = tempDir('ng-drain-');
});
afterAll(async () => {
  service?.child.kill('SIGKILL');
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('SIGTERM: not ready at once, open streams drained then cut and billed, a quiet exit 0', async () => {
  service = await startServiceProcess({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    SANDBOX_CHUNK_DELAY_MS: '300',
    SHUTDOWN_DRAIN_MS: '2000',
  });
  const base = service.baseUrl;
  expect((await fetch(`${base}/health/ready`)).status).toBe(200);
  const email = `drain-${crypto.randomBytes(4).toString('hex')}@example.com`;
  const user = await createUser(db.dataSource, new PlanDirectory(db.dataSource), {
    name: 'Drain',
    email,
    passwordHash: await hashPassword('drain-password'),
    plan: 'vip',
    planTokens: 500,
    bonusTokens: 0,
  });
  const login = await fetch(`${base}/api/v2/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'drain-password' }),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };

  // ~30 pieces at 300 ms: about 9 s, longer than the 2 s drain.
  const stream = watchSse(
    fetch(`${base}/api/v2/generate/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-6-luna', prompt: 'Tell me a long story about tides' }),
    }),
  );
  await stream.seen('content_delta');
  const signalledAt = Date.now();
  service.child.kill('SIGTERM');
  // The signal is handled: readiness turns at once (no request is refused before it does).
  await waitUntil(async () => (await fetch(`${base}/health/ready`)).status === 503, 10_000, 'readiness to turn');

  const ready = await fetch(`${base}/health/ready`);
  expect(ready.status).toBe(503);
  expect(((await ready.json()) as { status: string }).status).toBe('draining');
  expect((await fetch(`${base}/health/live`)).status).toBe(200);
  const refused = await fetch(`${base}/api/v2/user/balance`, { headers: { authorization: `Bearer ${token}` } });
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('5');

  const events = await stream.events;
  const end = events.find((e) => e.event === 'generation_end');
  expect(end?.data).toMatchObject({ status: 'completed' });
  expect(end!.data.tokens_spent).toBeGreaterThan(0);
  const deltas = events.filter((e) => e.event === 'content_delta').length;
  expect(deltas).toBeGreaterThan(2);
  expect(deltas).toBeLessThan(28); // cut, not finished

  expect(await service.exited).toBe(0);
  const tookMs = Date.now() - signalledAt;
  expect(tookMs).toBeLessThan(10_000);
  const [row] = await db.dataSource.query(`SELECT status, tokens_spent FROM generations WHERE user_id = $1`, [user.id]);
  expect(row).toEqual({ status: 'completed', tokens_spent: end!.data.tokens_spent });
  expect((await getBalance(db.dataSource, user.id)).total).toBe(500 - row.tokens_spent);
  const errors = service.lines.filter((l) => /"level":(50|60)/.test(l));
  expect(errors).toEqual([]);

  console.log(`SIGTERM -> exit 0 in ${tookMs} ms with the stream cut and billed`);
}, 60_000);
