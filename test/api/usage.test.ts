import { ApiHarness, expectErrorShape, insertGeneration, startApi } from './harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const DAY = 86_400_000;
const utcDay = (offsetDays: number) => new Date(Date.now() - offsetDays * DAY).toISOString().slice(0, 10);

test('GET /user/usage: completed generations per UTC day and category, every day present, others’ and failed ones left out', async () => {
  const account = await api.account('pro');
  const other = await api.account('pro');
  const { ds } = api.services;
  const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY);
  await insertGeneration(ds, account.user.id, { createdAt: at(0), tokensSpent: 3 });
  await insertGeneration(ds, account.user.id, { createdAt: at(0), tokensSpent: 4 });
  await insertGeneration(ds, account.user.id, { createdAt: at(2), category: 'text', modelSlug: 'gpt-6-luna', tokensSpent: 1 });
  await insertGeneration(ds, account.user.id, { createdAt: at(2), status: 'failed' });
  await insertGeneration(ds, account.user.id, { createdAt: at(40), tokensSpent: 9 });
  await insertGeneration(ds, other.user.id, { createdAt: at(0), tokensSpent: 50 });
  const token = await api.accessToken(account);

  const res = await api.request('GET', '/api/v2/user/usage?days=30', { token });
  expect(res.status).toBe(200);
  expect(res.body.days).toBe(30);
  expect(res.body.series).toHaveLength(30);
  expect(res.body.series[0].date).toBe(utcDay(29));
  const today = res.body.series[29];
  expect(today.date).toBe(utcDay(0));
  expect(today).toMatchObject({ tokens: 7, count: 2, categories: { image: { count: 2, tokens: 7 }, text: { count: 0, tokens: 0 } } });
  expect(Object.keys(today.categories).sort()).toEqual(['image', 'music', 'stt', 'text', 'tool', 'tts', 'video']);
  expect(res.body.series[27]).toMatchObject({ tokens: 1, count: 1, categories: { text: { count: 1, tokens: 1 } } });
  expect(res.body.series.reduce((s: number, d: { tokens: number }) => s + d.tokens, 0)).toBe(8);

  const week = await api.request('GET', '/api/v2/user/usage?days=7', { token });
  expect(week.body.series).toHaveLength(7);
  const byDefault = await api.request('GET', '/api/v2/user/usage', { token });
  expect(byDefault.body.days).toBe(30);

  expectErrorShape(await api.request('GET', '/api/v2/user/usage?days=0', { token }), 400, 'validation_error');
  expectErrorShape(await api.request('GET', '/api/v2/user/usage?days=91', { token }), 400, 'validation_error');
  expectErrorShape(await api.request('GET', '/api/v2/user/usage'), 401, 'not_authenticated');
});

test('GET /user/usage with from, to and group_by: the groups add up to the range’s total, per model and per key', async () => {
  const account = await api.account('vip');
  const { ds } = api.services;
  const keyA = await api.services.apiKeys.create(account.user.id, 'alpha');
  const keyB = await api.services.apiKeys.create(account.user.id, 'beta');
  const day = (iso: string, hour = 12) => new Date(`${iso}T${String(hour).padStart(2, '0')}:00:00Z`);
  const gen = (iso: string, values: Parameters<typeof insertGeneration>[2]) =>
    insertGeneration(ds, account.user.id, { createdAt: day(iso), ...values });
  await gen('2026-03-01', { modelSlug: 'flux-dev', tokensSpent: 5, apiKeyId: keyA.id });
  await gen('2026-03-01', { modelSlug: 'flux-dev', tokensSpent: 7 });
  await gen('2026-03-02', { modelSlug: 'gpt-6-luna', category: 'text', tokensSpent: 2, apiKeyId: keyB.id });
  await gen('2026-03-03', { modelSlug: 'gpt-6-luna', category: 'text', tokensSpent: 3, apiKeyId: keyA.id });
  await gen('2026-03-03', { modelSlug: 'gpt-6-luna', category: 'text', status: 'failed', apiKeyId: keyA.id });
  await gen('2026-03-04', { modelSlug: 'flux-dev', tokensSpent: 100 });
  await insertGeneration(ds, account.user.id, { createdAt: new Date('2026-02-28T23:59:59Z'), tokensSpent: 100 });
  const token = await api.accessToken(account);

  const byDay = await api.request('GET', '/api/v2/user/usage?from=2026-03-01&to=2026-03-03', { token });
  expect(byDay.status).toBe(200);
  expect(byDay.body).toMatchObject({ from: '2026-03-01', to: '2026-03-03', group_by: 'day', days: 3, total: { count: 4, tokens: 17 } });
  expect(byDay.body.series.map((d: { tokens: number }) => d.tokens)).toEqual([12, 2, 3]);
  expect(byDay.body.groups).toBeUndefined();

  const byModel = await api.request('GET', '/api/v2/user/usage?from=2026-03-01&to=2026-03-03&group_by=model', { token });
  expect(byModel.body.groups).toEqual([
    { id: 'flux-dev', name: 'flux-dev', count: 2, tokens: 12 },
    { id: 'gpt-6-luna', name: 'gpt-6-luna', count: 2, tokens: 5 },
  ]);
  const byKey = await api.request('GET', '/api/v2/user/usage?from=2026-03-01&to=2026-03-03&group_by=key', { token });
  expect(byKey.body.groups).toEqual([
    { id: keyA.id, name: 'alpha', count: 2, tokens: 8 },
    { id: null, name: null, count: 1, tokens: 7 },
    { id: keyB.id, name: 'beta', count: 1, tokens: 2 },
  ]);
  for (const res of [byModel, byKey]) {
    const sum = res.body.groups.reduce((s: number, g: { tokens: number }) => s + g.tokens, 0);
    expect(sum).toBe(res.body.total.tokens);
  }

  expectErrorShape(await api.request('GET', '/api/v2/user/usage?from=2026-03-05&to=2026-03-01', { token }), 400, 'validation_error');
  expectErrorShape(await api.request('GET', '/api/v2/user/usage?from=2026-02-30', { token }), 400, 'validation_error');
  expectErrorShape(await api.request('GET', '/api/v2/user/usage?from=2024-01-01&to=2026-03-01', { token }), 400, 'validation_error');
  expectErrorShape(await api.request('GET', '/api/v2/user/usage?group_by=week', { token }), 400, 'validation_error');
});

test('GET /config/public: the sign-in methods the dashboard may offer, nothing secret', async () => {
  const res = await api.request('GET', '/api/v2/config/public');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    telegram: { bot_id: 123456789, widget_script_url: 'https://telegram.org/js/telegram-widget.js?22' },
    oidc: null,
  });
  expect(res.text).not.toContain('TEST-bot-token');
});
