import { z } from 'zod';
import { ApiKeySchema, CreatedApiKeySchema } from '../../src/api/openapi/components';
import { isWellFormedApiKey } from '../../src/core/accounts/api-keys';
import { MAX_API_KEYS_PER_USER } from '../../src/core/accounts/api-key-quota';
import { ApiHarness, expectErrorShape, startApi } from './harness';
import { eventually } from '../support/wait';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

test('create (201, full key once), list (masked), rename, delete (204)', async () => {
  const account = await api.account('vip');
  const token = await api.accessToken(account);

  const created = await api.request('POST', '/api/v2/keys', { token, body: { name: '  CI runner ' } });
  expect(created.status).toBe(201);
  expect(z.strictObject(CreatedApiKeySchema.shape).safeParse(created.body).success).toBe(true);
  const noLimits = { token_budget: null, budget_period: 'month', spent: 0, models: null, expires_at: null, expired: false };
  expect(created.body).toEqual({
    id: expect.any(Number),
    name: 'CI runner',
    key: expect.any(String),
    masked_key: expect.any(String),
    created_at: expect.any(String),
    last_used_at: null,
    ...noLimits,
  });
  const key: string = created.body.key;
  expect(key).toHaveLength(48);
  expect(key.startsWith('nb_')).toBe(true);
  expect(isWellFormedApiKey(key)).toBe(true);
  expect(Date.parse(created.body.created_at)).toBeGreaterThan(Date.now() - 60_000);

  // The key works, and its use shows up as last_used_at.
  expect((await api.request('GET', '/api/v2/user/me', { token: key })).status).toBe(200);
  // last_used_at is written off the request path: wait for it to show.
  const list = await eventually(async () => {
    const res = await api.request('GET', '/api/v2/keys', { token });
    return res.body.keys?.[0]?.last_used_at ? res : undefined;
  });
  expect(list.status).toBe(200);
  expect(Object.keys(list.body)).toEqual(['keys']);
  expect(list.body.keys).toHaveLength(1);
  const [view] = list.body.keys;
  expect(z.strictObject(ApiKeySchema.shape).safeParse(view).success).toBe(true);
  expect(view).toEqual({
    id: created.body.id,
    name: 'CI runner',
    masked_key: expect.any(String),
    created_at: created.body.created_at,
    last_used_at: expect.any(String),
    ...noLimits,
  });
  expect(view.masked_key.startsWith(key.slice(0, 7))).toBe(true);
  expect(view.masked_key.endsWith(key.slice(-4))).toBe(true);
  expect(view.masked_key).not.toContain(key.slice(7, -4));
  expect(JSON.stringify(list.body)).not.toContain(key);

  const renamed = await api.request('PATCH', `/api/v2/keys/${created.body.id}`, { token, body: { name: 'Deploy' } });
  expect(renamed.status).toBe(200);
  expect(renamed.body).toMatchObject({ id: created.body.id, name: 'Deploy', masked_key: view.masked_key });

  const deleted = await api.request('DELETE', `/api/v2/keys/${created.body.id}`, { token });
  expect(deleted.status).toBe(204);
  expect(deleted.text).toBe('');
  expect((await api.request('GET', '/api/v2/keys', { token })).body).toEqual({ keys: [] });
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: key }), 401, 'invalid_token');
});

test('a Starter account may create keys (they work once the plan allows API access)', async () => {
  const account = await api.account('free');
  const token = await api.accessToken(account);
  const created = await api.request('POST', '/api/v2/keys', { token, body: { name: 'later' } });
  expect(created.status).toBe(201);
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: created.body.key }), 403, 'insufficient_plan');
});

test('another account’s keys answer 404 and stay untouched', async () => {
  const owner = await api.account('vip');
  const intruder = await api.account('vip');
  const ownerToken = await api.accessToken(owner);
  const intruderToken = await api.accessToken(intruder);
  const created = await api.request('POST', '/api/v2/keys', { token: ownerToken, body: { name: 'mine' } });
  const id = created.body.id;

  expectErrorShape(await api.request('PATCH', `/api/v2/keys/${id}`, { token: intruderToken, body: { name: 'stolen' } }), 404, 'not_found');
  expectErrorShape(await api.request('DELETE', `/api/v2/keys/${id}`, { token: intruderToken }), 404, 'not_found');
  expect((await api.request('GET', '/api/v2/keys', { token: intruderToken })).body.keys).toEqual([]);
  const still = await api.request('GET', '/api/v2/keys', { token: ownerToken });
  expect(still.body.keys.map((k: { name: string }) => k.name)).toEqual(['mine']);
  expect((await api.request('GET', '/api/v2/user/me', { token: created.body.key })).status).toBe(200);
});

test('bad names and ids answer 400; unknown ids 404', async () => {
  const account = await api.account('vip');
  const token = await api.accessToken(account);
  for (const [body, field] of [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: 'ok', extra: 1 }, 'extra'],
  ] as const) {
    const res = await api.request('POST', '/api/v2/keys', { token, body });
    expectErrorShape(res, 400, 'validation_error');
    expect(res.body.field).toBe(field);
  }
  for (const id of ['abc', '0', '-1', '1.5', '99999999999']) {
    const res = await api.request('DELETE', `/api/v2/keys/${id}`, { token });
    expectErrorShape(res, 400, 'validation_error');
    expect(res.body.field).toBe('id');
  }
  expectErrorShape(await api.request('DELETE', '/api/v2/keys/123456', { token }), 404, 'not_found');
});

test(`an account holds at most ${MAX_API_KEYS_PER_USER} keys`, async () => {
  const account = await api.account('vip');
  const token = await api.accessToken(account);
  for (let i = 0; i < MAX_API_KEYS_PER_USER; i++) await api.services.apiKeys.create(account.user.id, `k${i}`);
  const res = await api.request('POST', '/api/v2/keys', { token, body: { name: 'one too many' } });
  expectErrorShape(res, 409, 'quota_exceeded');
  expect(res.body.limit).toBe(MAX_API_KEYS_PER_USER);
});
