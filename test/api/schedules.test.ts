import { GenerationEntity, ScheduleEntity } from '../../src/db/entities';
import { getBalance } from '../../src/core/billing/ledger';
import { ApiHarness, expectErrorShape, startApi } from './harness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const request = { model: 'flux-dev', prompt: 'the morning sky' };

test('a schedule runs its generate request when due, once per slot, billed like any request', async () => {
  const acc = await api.account('free', { bonusTokens: 50 });
  const token = await api.accessToken(acc);
  const created = await api.request('POST', '/api/v2/schedules', { token, body: { name: 'sky', request, interval_minutes: 60 } });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: 'sky', interval_minutes: 60, enabled: true, last_generation_id: null });

  await api.db.dataSource.query(`UPDATE schedules SET next_run_at = now() - interval '1 minute' WHERE id = $1`, [created.body.id]);
  // Two instances racing for the same slot start it once.
  const [a, b] = await Promise.all([api.services.schedules.runDue(), api.services.schedules.runDue()]);
  expect(a + b).toBe(1);
  const s = await api.db.dataSource.getRepository(ScheduleEntity).findOneByOrFail({ id: created.body.id });
  expect(s.lastGenerationId).not.toBeNull();
  expect(s.nextRunAt.getTime()).toBeGreaterThan(Date.now() + 58 * 60_000);
  const g = await api.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ id: s.lastGenerationId! });
  expect(g).toMatchObject({ source: 'schedule', status: 'completed', userId: acc.user.id });
  expect((await getBalance(api.db.dataSource, acc.user.id)).total).toBe(50 - g.tokensSpent);

  const list = await api.request('GET', '/api/v2/schedules', { token });
  expect(list.body.schedules).toHaveLength(1);
  const off = await api.request('PATCH', `/api/v2/schedules/${created.body.id}`, { token, body: { enabled: false } });
  expect(off.body.enabled).toBe(false);
  const other = await api.accessToken(await api.account('free'));
  expectErrorShape(await api.request('DELETE', `/api/v2/schedules/${created.body.id}`, { token: other }), 404);
  expect((await api.request('DELETE', `/api/v2/schedules/${created.body.id}`, { token })).status).toBe(204);
});

test('a schedule is validated like generate: unknown model, plan tier, interval bounds', async () => {
  const token = await api.accessToken(await api.account('free'));
  expectErrorShape(
    await api.request('POST', '/api/v2/schedules', {
      token,
      body: { name: 'x', request: { model: 'nope', prompt: 'x' }, interval_minutes: 60 },
    }),
    404,
  );
  expectErrorShape(
    await api.request('POST', '/api/v2/schedules', {
      token,
      body: { name: 'x', request: { model: 'gpt-image-2.6-flare', prompt: 'x' }, interval_minutes: 60 },
    }),
    403,
  );
  expectErrorShape(await api.request('POST', '/api/v2/schedules', { token, body: { name: 'x', request, interval_minutes: 1 } }), 400);
});

test('a schedule stores a typed, versioned command and shows it as the generate body', async () => {
  const token = await api.accessToken(await api.account('vip', { bonusTokens: 50 }));
  const body = {
    model: 'flux-kontext-pro',
    prompt: 'a lighthouse',
    size: ' 2:3 ',
    negative_prompt: null,
    seed: 7,
    image_url: 'https://example.com/in.png',
  };
  const created = await api.request('POST', '/api/v2/schedules', { token, body: { name: 'typed', request: body, interval_minutes: 60 } });
  expect(created.status).toBe(201);
  const stored = await api.db.dataSource.getRepository(ScheduleEntity).findOneByOrFail({ id: created.body.id });
  expect(stored.command).toEqual({
    version: 1,
    request: {
      model: 'flux-kontext-pro',
      prompt: 'a lighthouse',
      size: '2:3',
      seed: 7,
      images: { image_url: { url: 'https://example.com/in.png' } },
    },
  });
  expect(created.body.request).toEqual({
    model: 'flux-kontext-pro',
    prompt: 'a lighthouse',
    size: '2:3',
    seed: 7,
    image_url: 'https://example.com/in.png',
  });
});

test('a stored command of an unknown version fails clearly when run', async () => {
  const acc = await api.account('free', { bonusTokens: 50 });
  const token = await api.accessToken(acc);
  const created = await api.request('POST', '/api/v2/schedules', { token, body: { name: 'future', request, interval_minutes: 60 } });
  await api.db.dataSource.query(
    `UPDATE schedules SET command = jsonb_set(command, '{version}', '2'), next_run_at = now() - interval '1 minute' WHERE id = $1`,
    [created.body.id],
  );
  expect(await api.services.schedules.runDue()).toBe(1);
  const s = await api.db.dataSource.getRepository(ScheduleEntity).findOneByOrFail({ id: created.body.id });
  expect(s.lastGenerationId).toBeNull();
  expect(s.lastError).toBe(`schedule ${created.body.id} stores a command of version 2; this build reads version 1 only`);
  await expect(api.services.schedules.list(acc.user.id)).rejects.toThrow('stores a command of version 2');
});
