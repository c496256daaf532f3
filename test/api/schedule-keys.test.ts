import { getBalance } from '../../src/core/billing/ledger';
import { GenerationEntity, ScheduleEntity } from '../../src/db/entities';
import { ApiHarness, expectErrorShape, startApi } from './harness';

// Issue 34, finding 2: a schedule made with a key ran as the account (api_key_id null) past the key's limits and
// kept running after the key was deleted. It now runs as its key and goes with it.

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  await api.db.dataSource.query(`UPDATE plans SET rate_limit_hourly = 0, rate_limit_daily = 0 WHERE slug = 'vip'`);
  api.services.plans.invalidate();
});
afterAll(() => api.close());

const request = { model: 'flux-dev', prompt: 'the morning sky' };

async function runNow(scheduleId: number): Promise<ScheduleEntity> {
  await api.db.dataSource.query(`UPDATE schedules SET next_run_at = now() - interval '1 minute' WHERE id = $1`, [scheduleId]);
  await api.services.schedules.runDue();
  return api.db.dataSource.getRepository(ScheduleEntity).findOneByOrFail({ id: scheduleId });
}

test('a schedule made with a key runs as that key: its budget, models and expiry apply, and it goes with the key', async () => {
  const account = await api.account('vip', { planTokens: 10_000 });
  const session = await api.accessToken(account);
  const made = await api.request('POST', '/api/v2/keys', { token: session, body: { name: 'cron' } });
  const keyId: number = made.body.id;

  const created = await api.request('POST', '/api/v2/schedules', {
    token: made.body.key,
    body: { name: 'sky', request, interval_minutes: 15 },
  });
  expect(created.status).toBe(201);
  expect(created.body.api_key_id).toBe(keyId);

  // A run is a request of the key.
  let s = await runNow(created.body.id);
  const first = await api.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ id: s.lastGenerationId! });
  expect(first).toMatchObject({ source: 'schedule', apiKeyId: keyId, status: 'completed' });

  // The owner gives the key a budget below one run: the next run is refused by it and charges nothing.
  await api.request('PATCH', `/api/v2/keys/${keyId}`, {
    token: session,
    body: { token_budget: first.tokensSpent, budget_period: 'total' },
  });
  const balance = async () => (await getBalance(api.db.dataSource, account.user.id)).total;
  const held = await balance();
  s = await runNow(created.body.id);
  expect(s.lastError).toMatch(/token budget/);
  expect(s.lastGenerationId).toBe(first.id);
  expect(await balance()).toBe(held);

  // A model list without the schedule's model refuses it.
  await api.request('PATCH', `/api/v2/keys/${keyId}`, { token: session, body: { token_budget: null, models: ['gpt-6-luna'] } });
  s = await runNow(created.body.id);
  expect(s.lastError).toMatch(/may not use the model flux-dev/);

  // An expired key runs nothing.
  await api.request('PATCH', `/api/v2/keys/${keyId}`, {
    token: session,
    body: { models: null, expires_at: new Date(Date.now() - 1000).toISOString() },
  });
  s = await runNow(created.body.id);
  expect(s.lastError).toMatch(/expired/);

  // Deleting the key deletes its schedules.
  expect((await api.request('DELETE', `/api/v2/keys/${keyId}`, { token: session })).status).toBe(204);
  expect(await api.db.dataSource.getRepository(ScheduleEntity).findOneBy({ id: created.body.id })).toBeNull();
});

test('a schedule made in a web session runs as the account and lists api_key_id null', async () => {
  const account = await api.account('vip', { planTokens: 10_000 });
  const session = await api.accessToken(account);
  const created = await api.request('POST', '/api/v2/schedules', { token: session, body: { name: 'sky', request, interval_minutes: 15 } });
  expect(created.body.api_key_id).toBeNull();
  const s = await runNow(created.body.id);
  const g = await api.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ id: s.lastGenerationId! });
  expect(g.apiKeyId).toBeNull();
});

test('a key’s model list applies when the schedule is made, and a restricted key makes none', async () => {
  const account = await api.account('vip', { planTokens: 10_000 });
  const session = await api.accessToken(account);
  const restricted = await api.request('POST', '/api/v2/keys', { token: session, body: { name: 'r', models: ['flux-dev'] } });
  expectErrorShape(
    await api.request('POST', '/api/v2/schedules', { token: restricted.body.key, body: { name: 'x', request, interval_minutes: 15 } }),
    403,
    'key_restricted',
  );
  const scope = (await api.services.apiKeys.scopeOf(account.user.id, restricted.body.id))!;
  const plan = await api.services.plans.get('vip');
  await expect(
    api.services.schedules.create(
      { user: account.user, plan, key: { ...scope, restricted: false } },
      { name: 'x', request: { ...request, model: 'gpt-image-2.6-flare' } as never, intervalMinutes: 15 },
    ),
  ).rejects.toMatchObject({ code: 'model_not_allowed' });
});
