import crypto from 'node:crypto';
import fs from 'node:fs';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { hashPassword } from '../../src/core/accounts/passwords';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { eventually } from '../support/wait';
import { buildOnce, ServiceProcess, startServiceProcess, tempDir } from './service-process';

// kill -9 of a running instance in the middle of a stream, of an inline image call and of a job step; then a
// restart on the same DATA_DIR: every reservation resolves within a minute, the stream billed on what it delivered.

let db: TestDatabase;
let dataDir: string;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  buildOnce();
  db = await createTestDatabase();
  dataDir = tempDir('ng-crash-');
});
afterAll(async () => {
  for (const p of running) p.child.kill('SIGKILL');
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function login(baseUrl: string, plan: 'basic' | 'vip', tokens: number): Promise<{ userId: number; token: string }> {
  const email = `crash-${crypto.randomBytes(4).toString('hex')}@example.com`;
  const password = 'crash-test-password';
  const user = await createUser(db.dataSource, new PlanDirectory(db.dataSource), {
    name: 'Crash',
    email,
    passwordHash: await hashPassword(password),
    plan,
    planTokens: tokens,
    bonusTokens: 0,
  });
  const res = await fetch(`${baseUrl}/api/v2/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return { userId: user.id, token: ((await res.json()) as { access_token: string }).access_token };
}

const post = (baseUrl: string, token: string, path: string, body: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const waitFor = <T>(probe: () => Promise<T | undefined>, ms: number): Promise<T> => eventually(probe, ms);

test('after kill -9 mid-stream, mid-call and mid-step, a restart resolves every reservation within a minute', async () => {
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir, SANDBOX_CHUNK_DELAY_MS: '250', UPSTREAM_TIMEOUT_MS: '20000' };
  const first = await startServiceProcess(env);
  running.push(first);
  const streamer = await login(first.baseUrl, 'vip', 500);
  const painter = await login(first.baseUrl, 'basic', 500);
  const filmer = await login(first.baseUrl, 'basic', 500);

  // A stream of ~30 pieces at 250 ms: cut at about 3 s, after at least one progress heartbeat.
  const stream = post(first.baseUrl, streamer.token, '/api/v2/generate/stream', { model: 'gpt-6-luna', prompt: 'Tell me about tides' })
    .then((r) => r.text())
    .catch(() => 'cut');
  // An inline image call the fake vendor never answers, and a video job whose submission step never returns.
  const image = post(first.baseUrl, painter.token, '/api/v2/generate', { model: 'flux-dev', prompt: 'a fox [[fail:timeout]]' }).catch(
    () => 'cut',
  );
  const video = await post(first.baseUrl, filmer.token, '/api/v2/generate', {
    model: 'kling-v2.1',
    prompt: 'a robot [[fail:timeout]]',
    image_url: 'data:image/png;base64,' + (await tinyPng()),
  });
  expect(video.status).toBe(200);
  const videoId = ((await video.json()) as { id: number }).id;
  await waitFor(async () => {
    const rows = await db.dataSource.query(
      `SELECT 1 FROM pgboss.job WHERE name = 'generation-step' AND state = 'active' AND data->>'generationId' = $1`,
      [String(videoId)],
    );
    return rows.length > 0 ? true : undefined;
  }, 10_000);
  // Mid-stream and mid-call: the stream's lease has recorded delivered text (a progress heartbeat), and the
  // inline image call holds its tokens.
  await waitFor(async () => {
    const [{ streamed, painting }] = await db.dataSource.query(
      `SELECT (SELECT count(*)::int FROM generation_leases l JOIN generations g ON g.id = l.generation_id
                WHERE g.user_id = $1 AND l.delivered_chars > 0) AS streamed,
              (SELECT count(*)::int FROM token_reservations WHERE user_id = $2 AND status = 'reserved') AS painting`,
      [streamer.userId, painter.userId],
    );
    return streamed > 0 && painting > 0 ? true : undefined;
  }, 20_000);

  first.child.kill('SIGKILL');
  await first.exited;
  const killedAt = Date.now();
  await Promise.all([stream, image]);
  const held = await db.dataSource.query(`SELECT count(*)::int AS n FROM token_reservations WHERE status = 'reserved'`);
  expect(held[0].n).toBe(3);

  const second = await startServiceProcess({ ...env, UPSTREAM_TIMEOUT_MS: '2000' });
  running.push(second);
  // The stream and the inline call were this instance's own: resolved as it starts, not at a deadline.
  await waitFor(async () => {
    const r = await db.dataSource.query(`SELECT count(*)::int AS n FROM generations WHERE status = 'pending' AND user_id = ANY($1)`, [
      [streamer.userId, painter.userId],
    ]);
    return r[0].n === 0 ? true : undefined;
  }, 5000);
  const ownResolvedInMs = Date.now() - killedAt;
  const rows = await waitFor(async () => {
    const r = await db.dataSource.query(`SELECT user_id, status, tokens_spent FROM generations ORDER BY id`);
    return r.every((g: { status: string }) => g.status !== 'pending') ? r : undefined;
  }, 60_000);
  const resolvedInMs = Date.now() - killedAt;
  expect(resolvedInMs).toBeLessThan(60_000);
  const byUser = new Map(rows.map((r: { user_id: number }) => [r.user_id, r]));
  expect(byUser.get(streamer.userId)).toMatchObject({ status: 'completed' });
  expect((byUser.get(streamer.userId) as { tokens_spent: number }).tokens_spent).toBeGreaterThan(0);
  expect(byUser.get(painter.userId)).toMatchObject({ status: 'failed', tokens_spent: 0 });
  expect(byUser.get(filmer.userId)).toMatchObject({ status: 'failed', tokens_spent: 0 });
  const reserved = await db.dataSource.query(`SELECT count(*)::int AS n FROM token_reservations WHERE status = 'reserved'`);
  expect(reserved[0].n).toBe(0);
  for (const u of [streamer, painter, filmer]) {
    const b = await getBalance(db.dataSource, u.userId);
    expect(b.total).toBe(500 - (byUser.get(u.userId) as { tokens_spent: number }).tokens_spent);
    expect(await ledgerTotals(db.dataSource, u.userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
  }
  console.log(`kill -9 -> stream and inline call resolved in ${ownResolvedInMs} ms (incl. restart), the job step in ${resolvedInMs} ms`);
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
}, 110_000);

async function tinyPng(): Promise<string> {
  return (await syntheticImage(64, 64, 'in')).toString('base64');
}
