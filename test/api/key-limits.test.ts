import { ledgerTotals, getBalance } from '../../src/core/billing/ledger';
import { ApiHarness, expectErrorShape, startApi } from './harness';

// An API key's own limits: a token budget per period, enforced in the token hold's statement (parallel requests
// cannot overshoot it), a model list, an expiry.

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
  await api.db.dataSource.query(`UPDATE plans SET rate_limit_hourly = 0, rate_limit_daily = 0 WHERE slug = 'vip'`);
  api.services.plans.invalidate();
});
afterAll(() => api.close());

const chat = (key: string, i: number, model = 'gpt-6-luna') =>
  api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model, messages: [{ role: 'user', content: `hello ${i}` }], max_tokens: 50, stream: i % 2 === 1 },
  });

async function keyRow(id: number): Promise<{ spent: number; charged: number }> {
  const [row] = await api.db.dataSource.query(
    `SELECT k.spent, (SELECT COALESCE(SUM(tokens_spent), 0)::int FROM generations WHERE api_key_id = k.id) AS charged
       FROM api_keys k WHERE k.id = $1`,
    [id],
  );
  return row;
}

test('create and edit a key with limits; the list shows them with spent and last use', async () => {
  const account = await api.account('vip', { planTokens: 100_000 });
  const token = await api.accessToken(account);
  const created = await api.request('POST', '/api/v2/keys', {
    token,
    body: { name: 'svc', token_budget: 5000, budget_period: 'day', models: ['gpt-6-luna'], expires_at: '2099-01-01T00:00:00Z' },
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    name: 'svc',
    token_budget: 5000,
    budget_period: 'day',
    spent: 0,
    models: ['gpt-6-luna'],
    expires_at: '2099-01-01T00:00:00.000Z',
    expired: false,
  });
  expect((await chat(created.body.key, 0)).status).toBe(200);

  const [listed] = (await api.request('GET', '/api/v2/keys', { token })).body.keys;
  const { charged } = await keyRow(created.body.id);
  expect(charged).toBeGreaterThan(0);
  expect(listed).toMatchObject({ id: created.body.id, spent: charged, last_used_at: expect.any(String) });

  // A new period recounts from the key's generations; null lifts a limit.
  const edited = await api.request('PATCH', `/api/v2/keys/${created.body.id}`, {
    token,
    body: { budget_period: 'total', token_budget: null, models: null },
  });
  expect(edited.status).toBe(200);
  expect(edited.body).toMatchObject({ name: 'svc', budget_period: 'total', token_budget: null, models: null, spent: charged });

  expectErrorShape(
    await api.request('POST', '/api/v2/keys', { token, body: { name: 'x', models: ['no-such-model'] } }),
    400,
    'validation_error',
  );
  expectErrorShape(
    await api.request('POST', '/api/v2/keys', { token, body: { name: 'x', budget_period: 'week' } }),
    400,
    'validation_error',
  );
  expectErrorShape(await api.request('POST', '/api/v2/keys', { token, body: { name: 'x', token_budget: -1 } }), 400, 'validation_error');
});

test('30 parallel requests on a key with a budget: no overshoot, the rest 402 key_budget_exceeded, books balanced', async () => {
  const account = await api.account('vip', { planTokens: 1_000_000 });
  const token = await api.accessToken(account);
  // What one request holds, measured with an unlimited key.
  const probe = await api.request('POST', '/api/v2/keys', { token, body: { name: 'probe' } });
  expect((await chat(probe.body.key, 0)).status).toBe(200);
  const [{ held }] = await api.db.dataSource.query(`SELECT tokens_reserved AS held FROM generations WHERE api_key_id = $1`, [
    probe.body.id,
  ]);
  const budget = 4 * held + Math.floor(held / 2);
  const limited = await api.request('POST', '/api/v2/keys', {
    token,
    body: { name: 'limited', token_budget: budget, budget_period: 'month' },
  });

  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => chat(limited.body.key, i)));
  const ok = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 402);
  expect(ok.length + refused.length).toBe(30);
  expect(ok.length).toBeGreaterThanOrEqual(4);
  expect(refused.length).toBeGreaterThan(0);
  for (const r of refused) expect(r.body.error).toMatchObject({ code: 'key_budget_exceeded', type: 'insufficient_quota' });

  const row = await keyRow(limited.body.id);
  expect(row.charged).toBeLessThanOrEqual(budget);
  expect(row.spent).toBe(row.charged);
  const holds = await api.db.dataSource.query(
    `SELECT count(*)::int AS n FROM token_reservations WHERE user_id = $1 AND status = 'reserved'`,
    [account.user.id],
  );
  expect(holds[0].n).toBe(0);
  const balance = await getBalance(api.db.dataSource, account.user.id);
  const totals = await ledgerTotals(api.db.dataSource, account.user.id);
  expect(totals.plan + totals.bonus).toBe(balance.total);

  // The account's own balance is not the limit: an unlimited key still works.
  expect((await chat(probe.body.key, 1)).status).toBe(200);
  // /api/v2 is held to the same budget.
  const res = await api.request('POST', '/api/v2/generate/stream', {
    token: limited.body.key,
    body: { model: 'gpt-6-luna', prompt: 'hi' },
  });
  expectErrorShape(res, 402, 'key_budget_exceeded');
});

test('a model outside the key’s list is 403 model_not_allowed; an expired key is 401', async () => {
  const account = await api.account('vip', { planTokens: 100_000 });
  const token = await api.accessToken(account);
  const only = await api.request('POST', '/api/v2/keys', { token, body: { name: 'only', models: ['gpt-6-luna'] } });
  expect((await chat(only.body.key, 0)).status).toBe(200);
  const refused = await chat(only.body.key, 0, 'claude-haiku-4-5');
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ code: 'model_not_allowed', type: 'permission_error' });
  const image = await api.request('POST', '/api/v2/generate', {
    token: only.body.key,
    body: { model: 'gpt-image-2.6-flare', prompt: 'a cat' },
  });
  expectErrorShape(image, 403, 'model_not_allowed');

  const soon = await api.request('POST', '/api/v2/keys', { token, body: { name: 'soon' } });
  expect((await chat(soon.body.key, 0)).status).toBe(200);
  const past = new Date(Date.now() - 1000).toISOString();
  expect((await api.request('PATCH', `/api/v2/keys/${soon.body.id}`, { token, body: { expires_at: past } })).body.expired).toBe(true);
  const expired = await chat(soon.body.key, 0);
  expect(expired.status).toBe(401);
  expect(expired.body.error.code).toBe('invalid_token');
});
