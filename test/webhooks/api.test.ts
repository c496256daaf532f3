import { loadConfig } from '../../src/config';
import { WebhookEndpoints } from '../../src/core/webhooks/endpoints';
import { ApiHarness, expectErrorShape, startApi } from '../api/harness';

// Registration rules with the SSRF policy on (no WEBHOOK_ALLOW_PRIVATE).
let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ WEBHOOK_MAX_ENDPOINTS: '3' });
});
afterAll(() => api.close());

async function storedCount(userId: number): Promise<number> {
  const rows = await api.db.dataSource.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1', [userId]);
  return rows[0].n;
}

test('register (201 with a whsec_ secret, all events by default), list without the secret, delete (204)', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const created = await api.request('POST', '/api/v2/webhooks', { token, body: { url: 'https://93.184.215.14/hooks/nebula' } });
  expect(created.status).toBe(201);
  expect(Object.keys(created.body).sort()).toEqual(['created_at', 'events', 'id', 'secret', 'url']);
  expect(created.body).toMatchObject({
    url: 'https://93.184.215.14/hooks/nebula',
    events: ['generation.completed', 'generation.failed', 'balance.low', 'payment.succeeded', 'payment.refunded'],
  });
  expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);
  expect(new Date(created.body.created_at).toISOString()).toBe(created.body.created_at);

  const only = await api.request('POST', '/api/v2/webhooks', {
    token,
    body: { url: 'https://93.184.215.14/other', events: ['generation.failed'] },
  });
  expect(only.status).toBe(201);
  expect(only.body.events).toEqual(['generation.failed']);

  const list = await api.request('GET', '/api/v2/webhooks', { token });
  expect(list.status).toBe(200);
  expect(list.body.webhooks.map((w: any) => w.id)).toEqual([created.body.id, only.body.id]);
  expect(list.text).not.toContain(created.body.secret);
  expect(list.body.webhooks[0]).toMatchObject({ status: 'active', failing_since: null });
  expect(list.body.webhooks[0].secret).toBeUndefined();

  expect((await api.request('DELETE', `/api/v2/webhooks/${created.body.id}`, { token })).status).toBe(204);
  expect((await api.request('GET', '/api/v2/webhooks', { token })).body.webhooks.map((w: any) => w.id)).toEqual([only.body.id]);
  expectErrorShape(await api.request('DELETE', `/api/v2/webhooks/${created.body.id}`, { token }), 404, 'not_found');
});

test('another account’s webhook is a 404 on delete, deliveries and test', async () => {
  const owner = await api.accessToken(await api.account('free'));
  const id = (await api.request('POST', '/api/v2/webhooks', { token: owner, body: { url: 'https://93.184.215.14/x' } })).body.id;
  const stranger = await api.accessToken(await api.account('free'));
  expectErrorShape(await api.request('DELETE', `/api/v2/webhooks/${id}`, { token: stranger }), 404, 'not_found');
  expectErrorShape(await api.request('GET', `/api/v2/webhooks/${id}/deliveries`, { token: stranger }), 404, 'not_found');
  expectErrorShape(await api.request('POST', `/api/v2/webhooks/${id}/test`, { token: stranger }), 404, 'not_found');
  expect((await api.request('GET', '/api/v2/webhooks', { token: stranger })).body.webhooks).toEqual([]);
  expect((await api.request('GET', '/api/v2/webhooks', { token: owner })).body.webhooks).toHaveLength(1);
});

test('bad input answers 400 and stores nothing', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const cases: [unknown, string][] = [
    [{ url: 'http://127.0.0.1:9/hook' }, 'forbidden_address'],
    [{ url: 'https://localhost/hook' }, 'forbidden_address'],
    [{ url: 'https://api.localhost/hook' }, 'forbidden_address'],
    [{ url: 'https://10.1.2.3/hook' }, 'forbidden_address'],
    [{ url: 'https://192.168.0.10/hook' }, 'forbidden_address'],
    [{ url: 'https://169.254.169.254/latest/meta-data' }, 'forbidden_address'],
    [{ url: 'https://[::1]/hook' }, 'forbidden_address'],
    [{ url: 'https://[::ffff:127.0.0.1]/hook' }, 'forbidden_address'],
    [{ url: 'https://2130706433/hook' }, 'forbidden_address'],
    [{ url: 'ftp://93.184.215.14/hook' }, 'invalid_url'],
    [{ url: 'not a url' }, 'invalid_url'],
    [{ url: 'https://user:pw@93.184.215.14/hook' }, 'invalid_url'],
    [{ url: 'https://93.184.215.14/hook', events: ['generation.exploded'] }, 'unknown_event'],
    [{ url: 'https://93.184.215.14/hook', events: [] }, 'unknown_event'],
    [{ url: 'https://93.184.215.14/hook', events: ['webhook.test'] }, 'unknown_event'],
    [{ url: 'https://93.184.215.14/hook', extra: 1 }, 'validation_error'],
    [{ events: ['balance.low'] }, 'validation_error'],
  ];
  for (const [body, code] of cases) {
    const res = await api.request('POST', '/api/v2/webhooks', { token, body });
    expectErrorShape(res, 400, code);
  }
  expect(await storedCount(acc.user.id)).toBe(0);
});

test('the endpoint limit holds under parallel registrations: exactly the limit is stored', async () => {
  const acc = await api.account('free');
  const token = await api.accessToken(acc);
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      api.request('POST', '/api/v2/webhooks', { token, body: { url: `https://93.184.215.14/hook/${i}` } }),
    ),
  );
  expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
  for (const r of answers.filter((x) => x.status !== 201)) expectErrorShape(r, 400, 'webhook_limit_reached');
  expect(await storedCount(acc.user.id)).toBe(3);
});

test('API keys work for VIP accounts; no credentials is 401', async () => {
  const vip = await api.account('vip');
  const key = await api.apiKey(vip);
  const created = await api.request('POST', '/api/v2/webhooks', { token: key, body: { url: 'https://93.184.215.14' } });
  expect(created.status).toBe(201);
  expect(created.body.url).toBe('https://93.184.215.14');
  expect((await api.request('GET', '/api/v2/webhooks', { token: key })).body.webhooks).toHaveLength(1);
  expectErrorShape(await api.request('GET', '/api/v2/webhooks'), 401);
});

test('the OpenAPI document has the webhook routes and the event bodies', async () => {
  const doc = (await api.request('GET', '/api/v2/openapi.json')).body;
  expect(Object.keys(doc.paths['/api/v2/webhooks'])).toEqual(expect.arrayContaining(['get', 'post']));
  expect(doc.paths['/api/v2/webhooks/{id}'].delete).toBeDefined();
  expect(doc.paths['/api/v2/webhooks/{id}/deliveries'].get).toBeDefined();
  expect(doc.paths['/api/v2/webhooks/{id}/test'].post).toBeDefined();
  expect(Object.keys(doc.webhooks).sort()).toEqual([
    'balance.low',
    'generation.completed',
    'generation.failed',
    'payment.refunded',
    'payment.succeeded',
    'webhook.test',
  ]);
  expect(doc.webhooks['generation.completed'].post.requestBody.content['application/json'].schema.$ref).toBe(
    '#/components/schemas/GenerationEvent',
  );
  expect(Object.keys(doc.components.schemas.GenerationEvent.properties)).toEqual(
    expect.arrayContaining(['event', 'generation_id', 'status', 'model_slug', 'result_url', 'tokens_spent', 'created_at', 'error']),
  );
});

test('production refuses plain http targets', async () => {
  const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), API_KEY_PEPPER: 'p' });
  const endpoints = new WebhookEndpoints(api.db.dataSource, {
    maxEndpoints: 3,
    requireHttps: config.env === 'production',
    allowPrivate: false,
  });
  const acc = await api.account('free');
  await expect(endpoints.create(acc.user.id, { url: 'http://93.184.215.14/hook' })).rejects.toMatchObject({ code: 'https_required' });
  expect(await storedCount(acc.user.id)).toBe(0);
  await expect(endpoints.create(acc.user.id, { url: 'https://93.184.215.14/hook' })).resolves.toMatchObject({
    url: 'https://93.184.215.14/hook',
  });
});
