// Per-account caps hold under parallel requests: the count and the insert run under the account's row lock.
import { MAX_API_KEYS_PER_USER } from '../../src/core/accounts/api-key-quota';
import { MAX_SCHEDULES_PER_USER } from '../../src/core/schedules/schedules';
import { ApiHarness, expectErrorShape, startApi } from './harness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const count = async (table: 'api_keys' | 'schedules', userId: number) =>
  (await api.db.dataSource.query(`SELECT count(*)::int AS n FROM ${table} WHERE user_id = $1`, [userId]))[0].n as number;

test('30 parallel key creations store at most the limit', async () => {
  const account = await api.account('vip');
  const token = await api.accessToken(account);
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => api.request('POST', '/api/v2/keys', { token, body: { name: `k${i}` } })),
  );
  expect(answers.filter((a) => a.status === 201)).toHaveLength(MAX_API_KEYS_PER_USER);
  for (const refused of answers.filter((a) => a.status !== 201)) expectErrorShape(refused, 409, 'quota_exceeded');
  expect(await count('api_keys', account.user.id)).toBe(MAX_API_KEYS_PER_USER);
});

test('30 parallel schedule creations store at most the limit', async () => {
  const account = await api.account('vip');
  const token = await api.accessToken(account);
  const body = (i: number) => ({ name: `s${i}`, request: { model: 'flux-dev', prompt: 'sky' }, interval_minutes: 60 });
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => api.request('POST', '/api/v2/schedules', { token, body: body(i) })),
  );
  expect(answers.filter((a) => a.status === 201)).toHaveLength(MAX_SCHEDULES_PER_USER);
  for (const refused of answers.filter((a) => a.status !== 201)) expectErrorShape(refused, 409, 'quota_exceeded');
  expect(await count('schedules', account.user.id)).toBe(MAX_SCHEDULES_PER_USER);
});
