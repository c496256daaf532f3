import { ApiHarness, startApi } from './harness';

// A key's use is on record before its answer leaves: the keys list read right after shows when it was last used
// (the write used to run in the background, and a list read at once missed it now and then).

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

test('a key used on GET /user/me shows last_used_at in the very next GET /keys, every time', async () => {
  const account = await api.account('vip');
  const token = await api.accessToken(account);
  for (let i = 0; i < 12; i++) {
    const created = await api.request('POST', '/api/v2/keys', { token, body: { name: `k${i}` } });
    expect(created.status).toBe(201);
    const before = Date.now();
    expect((await api.request('GET', '/api/v2/user/me', { token: created.body.key })).status).toBe(200);
    const [row] = await api.db.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [created.body.id]);
    expect(row.last_used_at).not.toBeNull();
    const listed = (await api.request('GET', '/api/v2/keys', { token })).body.keys.find((k: { id: number }) => k.id === created.body.id);
    expect(listed.last_used_at).not.toBeNull();
    expect(Date.parse(listed.last_used_at)).toBeGreaterThan(before - 5000);
    expect((await api.request('DELETE', `/api/v2/keys/${created.body.id}`, { token })).status).toBe(204);
  }
});
