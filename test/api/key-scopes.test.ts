import { KeyRestrictedError, limitsWiderThan, type KeyLimitValues } from '../../src/core/accounts/key-limits';
import { ApiHarness, expectErrorShape, insertGeneration, startApi, TestAccount } from './harness';

// Issue 34, finding 1: a key with any limit is restricted. It generates and reads (models, balance, its own usage
// and generations) and manages nothing; an unrestricted key keeps full access; no key makes a key wider than itself.

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ WEBHOOK_ALLOW_PRIVATE: '1' });
  await api.db.dataSource.query(`UPDATE plans SET rate_limit_hourly = 0, rate_limit_daily = 0 WHERE slug = 'vip'`);
  api.services.plans.invalidate();
});
afterAll(() => api.close());

async function setup(limits: Record<string, unknown>): Promise<{ account: TestAccount; session: string; key: string; keyId: number }> {
  const account = await api.account('vip', { planTokens: 100_000 });
  const session = await api.accessToken(account);
  const created = await api.request('POST', '/api/v2/keys', { token: session, body: { name: 'limited', ...limits } });
  expect(created.status).toBe(201);
  return { account, session, key: created.body.key, keyId: created.body.id };
}

const refusedRestricted = (res: Awaited<ReturnType<ApiHarness['request']>>) => expectErrorShape(res, 403, 'key_restricted');

test('the probe’s key (budget 1, one model) cannot lift its limits, make keys, delete a sibling, add a webhook or pay', async () => {
  const { session, key, keyId } = await setup({ token_budget: 1, models: ['gpt-6-luna'] });
  const sibling = await api.request('POST', '/api/v2/keys', { token: session, body: { name: 'sibling' } });

  refusedRestricted(
    await api.request('PATCH', `/api/v2/keys/${keyId}`, { token: key, body: { token_budget: null, models: null, expires_at: null } }),
  );
  const [row] = await api.db.dataSource.query('SELECT token_budget, models FROM api_keys WHERE id = $1', [keyId]);
  expect(row).toEqual({ token_budget: 1, models: ['gpt-6-luna'] });
  refusedRestricted(await api.request('POST', '/api/v2/keys', { token: key, body: { name: 'wide open' } }));
  refusedRestricted(await api.request('DELETE', `/api/v2/keys/${sibling.body.id}`, { token: key }));
  refusedRestricted(await api.request('GET', '/api/v2/keys', { token: key }));
  refusedRestricted(await api.request('POST', '/api/v2/webhooks', { token: key, body: { url: 'http://127.0.0.1:9/hook' } }));
  refusedRestricted(await api.request('GET', '/api/v2/webhooks', { token: key }));
  refusedRestricted(
    await api.request('POST', '/api/v2/schedules', {
      token: key,
      body: { name: 'drain', request: { model: 'gpt-6-luna', prompt: 'x' }, interval_minutes: 15 },
    }),
  );
  refusedRestricted(await api.request('POST', '/api/v2/payments/carrier/initiate', { token: key, body: { article_id: 'tokens-100' } }));
  refusedRestricted(
    await api.request('POST', '/api/v2/payments/carrier/quick-checkout', { token: key, body: { article_id: 'tokens-100' } }),
  );
  refusedRestricted(await api.request('GET', '/api/v2/payments/orders', { token: key }));
  refusedRestricted(await api.request('GET', '/api/v2/user/me', { token: key }));
  refusedRestricted(await api.request('PATCH', '/api/v2/user/me', { token: key, body: { name: 'owned' } }));
  refusedRestricted(await api.request('GET', '/api/v2/user/settings', { token: key }));
  refusedRestricted(await api.request('PATCH', '/api/v2/user/settings', { token: key, body: { language: 'ru' } }));
  refusedRestricted(await api.request('GET', '/api/v2/auth/sessions', { token: key }));
  refusedRestricted(await api.request('POST', '/api/v2/user/delete', { token: key, body: { password: 'x' } }));
  refusedRestricted(await api.request('GET', '/api/v2/assistants/user', { token: key }));

  // Nothing changed: two keys, no webhook, no schedule, no order.
  const counts = await api.db.dataSource.query(
    `SELECT (SELECT count(*) FROM api_keys WHERE user_id = u.id)::int AS keys,
            (SELECT count(*) FROM webhook_endpoints WHERE user_id = u.id)::int AS hooks,
            (SELECT count(*) FROM schedules WHERE user_id = u.id)::int AS schedules,
            (SELECT count(*) FROM payment_orders WHERE user_id = u.id)::int AS orders
       FROM users u JOIN api_keys k ON k.user_id = u.id WHERE k.id = $1`,
    [keyId],
  );
  expect(counts[0]).toEqual({ keys: 2, hooks: 0, schedules: 0, orders: 0 });

  // And it still cannot run another model.
  const claude = await api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: 'claude-opus-4-8', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 },
  });
  expect(claude.status).toBe(403);
  expect(claude.body.error.code).toBe('model_not_allowed');
});

test('each limit alone restricts: a key with only an expiry or only a budget manages nothing', async () => {
  for (const limits of [{ expires_at: '2099-01-01T00:00:00Z' }, { token_budget: 1_000_000, budget_period: 'total' }]) {
    const { key } = await setup(limits);
    refusedRestricted(await api.request('POST', '/api/v2/keys', { token: key, body: { name: 'x' } }));
  }
  // budget_period alone is no limit.
  const { key } = await setup({ budget_period: 'day' });
  expect((await api.request('GET', '/api/v2/keys', { token: key })).status).toBe(200);
});

test('a restricted key generates and reads the models, the balance, and only its own usage and generations', async () => {
  const { account, session, key, keyId } = await setup({ models: ['gpt-6-luna'] });
  const other = await api.request('POST', '/api/v2/keys', { token: session, body: { name: 'other' } });
  const chat = (token: string) =>
    api.request('POST', '/v1/chat/completions', {
      token,
      body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hello' }], max_tokens: 20 },
    });
  expect((await chat(key)).status).toBe(200);
  expect((await chat(other.body.key)).status).toBe(200);
  expect((await chat(session)).status).toBe(200);
  const foreign = await insertGeneration(api.db.dataSource, account.user.id, { source: 'bot' });

  expect((await api.request('GET', '/api/v2/models', { token: key })).status).toBe(200);
  expect((await api.request('GET', '/v1/models', { token: key })).status).toBe(200);
  expect((await api.request('GET', '/api/v2/user/balance', { token: key })).status).toBe(200);
  const price = await api.request('POST', '/api/v2/models/flux-dev/calculate-price', { token: key, body: { prompt: 'x' } });
  expect(price.status).toBe(200);

  const history = await api.request('GET', '/api/v2/user/history', { token: key });
  expect(history.status).toBe(200);
  expect(history.body.items.map((i: { api_key_id: number }) => i.api_key_id)).toEqual([keyId]);
  const full = await api.request('GET', '/api/v2/user/history', { token: session });
  expect(full.body.items).toHaveLength(4);
  // Asking for another key's requests finds none.
  const asked = await api.request('GET', `/api/v2/user/history?key=${other.body.id}`, { token: key });
  expect(asked.body.items).toEqual([]);

  const usage = await api.request('GET', '/api/v2/user/usage?group_by=key', { token: key });
  expect(usage.status).toBe(200);
  expect(usage.body.total.count).toBe(1);
  expect(usage.body.groups.map((g: { id: number }) => g.id)).toEqual([keyId]);
  const stats = await api.request('GET', '/api/v2/user/stats', { token: key });
  expect(stats.body.total_generations).toBe(1);

  expectErrorShape(await api.request('GET', `/api/v2/generate/${foreign.id}`, { token: key }), 404, 'not_found');
  expect((await api.request('GET', `/api/v2/generate/${foreign.id}`, { token: session })).status).toBe(200);
  const own = history.body.items[0].id;
  expect((await api.request('GET', `/api/v2/generate/${own}`, { token: key })).status).toBe(200);
});

test('an unrestricted key keeps full access: it makes, edits and deletes keys, adds webhooks and schedules', async () => {
  const { session } = await setup({});
  const open = await api.request('POST', '/api/v2/keys', { token: session, body: { name: 'admin key' } });
  const key = open.body.key as string;

  const made = await api.request('POST', '/api/v2/keys', { token: key, body: { name: 'child', token_budget: 10 } });
  expect(made.status).toBe(201);
  const widened = await api.request('PATCH', `/api/v2/keys/${made.body.id}`, { token: key, body: { token_budget: null } });
  expect(widened.status).toBe(200);
  expect(widened.body.token_budget).toBeNull();
  expect((await api.request('GET', '/api/v2/keys', { token: key })).body.keys).toHaveLength(3);
  expect((await api.request('DELETE', `/api/v2/keys/${made.body.id}`, { token: key })).status).toBe(204);
  expect((await api.request('POST', '/api/v2/webhooks', { token: key, body: { url: 'http://127.0.0.1:9/hook' } })).status).toBe(201);
  expect((await api.request('GET', '/api/v2/user/me', { token: key })).status).toBe(200);
});

test('the OpenAPI document lists key_restricted on the routes a restricted key may not call, and only there', async () => {
  const doc = (await api.request('GET', '/api/v2/openapi.json')).body;
  const text = (path: string, method: string) => String(doc.paths[path][method].responses['403'].description);
  expect(text('/api/v2/keys', 'post')).toContain('key_restricted');
  expect(text('/api/v2/webhooks', 'post')).toContain('key_restricted');
  expect(text('/api/v2/schedules', 'post')).toContain('key_restricted');
  expect(text('/api/v2/generate', 'post')).not.toContain('key_restricted');
  expect(text('/api/v2/user/balance', 'get')).not.toContain('key_restricted');
});

describe('wider: a key may not create or edit a key that may do what it may not', () => {
  const open: KeyLimitValues = { tokenBudget: null, budgetPeriod: 'month', models: null, expiresAt: null };
  const holder: KeyLimitValues = {
    tokenBudget: 100,
    budgetPeriod: 'month',
    models: ['gpt-6-luna', 'flux-dev'],
    expiresAt: new Date('2030-01-01T00:00:00Z'),
  };

  test('the same limits, or tighter ones, are not wider', () => {
    expect(limitsWiderThan(holder, holder)).toEqual([]);
    expect(
      limitsWiderThan(
        { tokenBudget: 50, budgetPeriod: 'total', models: ['flux-dev'], expiresAt: new Date('2029-01-01T00:00:00Z') },
        holder,
      ),
    ).toEqual([]);
    // Anything is within a key without limits.
    expect(limitsWiderThan(open, open)).toEqual([]);
    expect(limitsWiderThan(holder, open)).toEqual([]);
  });

  test('each limit lifted, raised, or renewed more often is wider, and named', () => {
    expect(limitsWiderThan(open, holder)).toEqual(['models', 'token_budget', 'expires_at']);
    expect(limitsWiderThan({ ...holder, models: ['gpt-6-luna', 'claude-opus-4-8'] }, holder)).toEqual(['models']);
    expect(limitsWiderThan({ ...holder, tokenBudget: 101 }, holder)).toEqual(['token_budget']);
    expect(limitsWiderThan({ ...holder, budgetPeriod: 'day' }, holder)).toEqual(['token_budget']);
    expect(limitsWiderThan({ ...holder, expiresAt: new Date('2031-01-01T00:00:00Z') }, holder)).toEqual(['expires_at']);
  });

  test('the core refuses a restricted key’s writes even past the door', async () => {
    const { account, keyId } = await setup({ token_budget: 5 });
    const scope = (await api.services.apiKeys.scopeOf(account.user.id, keyId))!;
    expect(scope.restricted).toBe(true);
    await expect(api.services.createApiKey(account.user.id, 'x', {}, scope)).rejects.toBeInstanceOf(KeyRestrictedError);
    await expect(api.services.apiKeys.update(account.user.id, keyId, { token_budget: null }, scope)).rejects.toBeInstanceOf(
      KeyRestrictedError,
    );
    await expect(api.services.apiKeys.delete(account.user.id, keyId, scope)).rejects.toBeInstanceOf(KeyRestrictedError);
  });
});
