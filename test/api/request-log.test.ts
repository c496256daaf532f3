import { z } from 'zod';
import { HistoryEntrySchema, RefusalSchema } from '../../src/api/openapi/components';
import { ApiHarness, avoidWindowEdge, insertGeneration, startApi } from './harness';

// The request log's server side: refused calls (403, 402, 429) are recorded per account and listed; each history
// entry carries what was asked and a chat's model tokens; a finished result can be deleted by its owner.

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const chat = (token: string, model = 'gpt-6-luna', content = 'Hello there') =>
  api.request('POST', '/v1/chat/completions', { token, body: { model, messages: [{ role: 'user', content }], max_tokens: 50 } });

async function refusals(token: string, query = ''): Promise<z.infer<typeof RefusalSchema>[]> {
  await api.services.refusals.flush();
  const res = await api.request('GET', `/api/v2/user/refusals${query}`, { token });
  expect(res.status).toBe(200);
  return res.body.items;
}

describe('refused calls', () => {
  test('a key below VIP, a model outside a key’s list and a balance too small are each recorded with route and model', async () => {
    const basic = await api.account('basic');
    const basicToken = await api.accessToken(basic);
    const basicKey = await api.services.apiKeys.create(basic.user.id, 'too early');
    expect((await api.request('GET', '/api/v2/user/me', { token: basicKey.key })).status).toBe(403);
    const [belowVip] = await refusals(basicToken);
    expect(belowVip).toMatchObject({
      door: 'api',
      api_key_id: basicKey.id,
      route: 'GET /api/v2/user/me',
      model_slug: null,
      status: 403,
      error: 'insufficient_plan',
      count: 1,
    });
    expect(z.strictObject(RefusalSchema.shape).safeParse(belowVip).success).toBe(true);

    const vip = await api.account('vip', { planTokens: 0, bonusTokens: 0 });
    const token = await api.accessToken(vip);
    const scoped = await api.services.apiKeys.create(vip.user.id, 'scoped', undefined, { models: ['gpt-6-luna'] });
    expect((await chat(scoped.key, 'claude-haiku-4-5')).status).toBe(403);
    expect((await chat(token)).status).toBe(402);
    const [broke, outside] = await refusals(token);
    expect(outside).toMatchObject({
      door: 'api',
      api_key_id: scoped.id,
      model_slug: 'claude-haiku-4-5',
      status: 403,
      error: 'model_not_allowed',
    });
    expect(broke).toMatchObject({
      door: 'web',
      api_key_id: null,
      route: 'POST /v1/chat/completions',
      model_slug: 'gpt-6-luna',
      status: 402,
      error: 'insufficient_tokens',
    });
    // The other account sees none of them.
    expect((await refusals(basicToken)).map((r) => r.error)).toEqual(['insufficient_plan']);
    // A restricted key reads only its own refusals.
    const own = await api.request('GET', '/api/v2/user/refusals', { token: scoped.key });
    expect(own.body.items.map((r: { error: string }) => r.error)).toEqual(['model_not_allowed']);
  });

  test('a limit hit over and over is one row with a count; filters and pages work', async () => {
    await avoidWindowEdge(3600);
    const account = await api.account('free');
    const token = await api.accessToken(account);
    const plan = await api.services.plans.get('free');
    for (let i = 0; i < plan.rateLimitHourly; i++) await api.services.limiter.consume(account.user.id, plan);
    for (let i = 0; i < 5; i++) expect((await chat(token)).status).toBe(429);
    const [limited] = await refusals(token, '?status=429');
    expect(limited).toMatchObject({ status: 429, error: 'rate_limit_exceeded', count: 5, model_slug: 'gpt-6-luna' });
    expect(Date.parse(limited!.last_at)).toBeGreaterThanOrEqual(Date.parse(limited!.created_at));
    expect(await refusals(token, '?status=402')).toEqual([]);
    expect((await api.request('GET', '/api/v2/user/refusals?status=500', { token })).status).toBe(400);
    expect((await api.request('GET', '/api/v2/user/refusals?cursor=nope', { token })).status).toBe(400);
  });
});

describe('history entries', () => {
  test('carry the prompt and the model tokens of a chat, apart from the tkn charged', async () => {
    const account = await api.account('pro', { planTokens: 500 });
    const token = await api.accessToken(account);
    expect((await chat(token, 'gpt-6-luna', 'Tell me about tides')).status).toBe(200);
    const res = await api.request('GET', '/api/v2/user/history?limit=1', { token });
    const [entry] = res.body.items;
    expect(z.strictObject(HistoryEntrySchema.shape).safeParse(entry).success).toBe(true);
    expect(entry).toMatchObject({ prompt: 'Tell me about tides', door: 'web', status: 'completed' });
    expect(entry.usage.input_tokens).toBeGreaterThan(0);
    expect(entry.usage.output_tokens).toBeGreaterThan(0);
    expect(entry.usage.cached_tokens).toBe(0);
    expect(entry.tokens_spent).toBeGreaterThanOrEqual(1);
  });
});

describe('deleting a result', () => {
  test('the file answers 410, text and prompt are gone, the history can leave it out; again is 204; pending is 409', async () => {
    const account = await api.account('pro', { planTokens: 500 });
    const token = await api.accessToken(account);
    const made = await api.request('POST', '/api/v2/generate', { token, body: { model: 'flux-dev', prompt: 'a lighthouse at dusk' } });
    expect(made.body.status).toBe('completed');
    expect((await fetch(made.body.result_url)).status).toBe(200);
    // ?download= saves the file under a name (the dashboard's Download), whatever origin links it; odd names are ignored.
    const saved = await fetch(`${made.body.result_url}?download=flux-dev-${made.body.id}.webp`);
    expect(saved.headers.get('content-disposition')).toBe(`attachment; filename="flux-dev-${made.body.id}.webp"`);
    expect(
      (await fetch(`${made.body.result_url}?download=${encodeURIComponent('a"b\r\n.png')}`)).headers.get('content-disposition'),
    ).toBeNull();

    const other = await api.accessToken(await api.account('pro'));
    expect((await api.request('DELETE', `/api/v2/generate/${made.body.id}`, { token: other })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v2/generate/${made.body.id}`, { token })).status).toBe(204);
    expect((await fetch(made.body.result_url)).status).toBe(410);
    const after = (await api.request('GET', `/api/v2/generate/${made.body.id}`, { token })).body;
    expect(after).toMatchObject({
      id: made.body.id,
      result_url: null,
      tokens_spent: made.body.tokens_spent,
      deleted_at: expect.any(String),
    });
    const log = (await api.request('GET', '/api/v2/user/history', { token })).body.items;
    expect(log.find((e: { id: number }) => e.id === made.body.id)).toMatchObject({ prompt: null, deleted_at: expect.any(String) });
    const kept = (await api.request('GET', '/api/v2/user/history?deleted=exclude', { token })).body.items;
    expect(kept.map((e: { id: number }) => e.id)).not.toContain(made.body.id);
    expect((await api.request('DELETE', `/api/v2/generate/${made.body.id}`, { token })).status).toBe(204);

    const running = await insertGeneration(api.services.ds, account.user.id, { status: 'pending' });
    const pending = await api.request('DELETE', `/api/v2/generate/${running.id}`, { token });
    expect([pending.status, pending.body.error]).toEqual([409, 'generation_pending']);
    expect((await api.request('DELETE', '/api/v2/generate/abc', { token })).status).toBe(400);
  });
});

test('GET /plans compares the plans: tokens, limits, models, keys; Starter has a one-time grant and no refill', async () => {
  const res = await api.request('GET', '/api/v2/plans');
  expect(res.status).toBe(200);
  const bySlug = Object.fromEntries(res.body.plans.map((p: { slug: string }) => [p.slug, p]));
  expect(res.body.plans.map((p: { slug: string }) => p.slug)).toEqual(['free', 'basic', 'pro', 'vip', 'elite']);
  expect(bySlug.free).toMatchObject({ name: 'Starter', monthly_tokens: 0, one_time_tokens: 50, api_keys: false, period_days: 30 });
  expect(bySlug.vip).toMatchObject({ api_keys: true, rate_limit_hourly: 100 });
  expect(bySlug.free.models).toBeLessThan(bySlug.basic.models);
  const catalog = (await api.request('GET', '/api/v2/models', { token: await api.accessToken(await api.account('elite')) })).body;
  expect(bySlug.elite.models).toBe(catalog.total);
  const luna = catalog.models.find((m: { slug: string }) => m.slug === 'gpt-6-luna');
  expect(luna.price_per_million_tokens).toEqual({
    input: expect.any(Number),
    cached_input: expect.any(Number),
    output: expect.any(Number),
  });
  expect(luna.price_per_million_tokens.output).toBeGreaterThan(luna.price_per_million_tokens.input);
  expect(catalog.models.find((m: { slug: string }) => m.slug === 'flux-dev').price_per_million_tokens).toBeUndefined();
});

test('the service log keeps probes and the dashboard’s files below info; API calls and failures stay at info', async () => {
  const probe = await fetch(`${api.baseUrl}/health/live`);
  const page = await fetch(`${api.baseUrl}/keys`, { headers: { Accept: 'text/html' } });
  const call = await api.request('GET', '/api/v2/plans');
  const missing = await fetch(`${api.baseUrl}/assets/missing-123.js`);
  expect([probe.status, page.status, call.status, missing.status]).toEqual([200, 200, 200, 404]);
  const lines = api.logs.map((l) => JSON.parse(l) as { msg: string; path?: string }).filter((l) => l.msg === 'request');
  const logged = (path: string) => lines.some((l) => l.path === path);
  expect([logged('/health/live'), logged('/keys'), logged('/api/v2/plans'), logged('/assets/missing-123.js')]).toEqual([
    false,
    false,
    true,
    true,
  ]);
});
