import { getBalance } from '../../src/core/billing/ledger';
import { ApiHarness, expectErrorShape, startApi } from './harness';
import { waitUntil } from '../support/wait';

// Two instances of the service on one database, each caching verified API keys in memory. A change on one
// instance (or by any SQL writer) stops the key everywhere as soon as each instance's listener receives the
// PostgreSQL NOTIFY the triggers send on commit: the instance that made the change refuses the key before it
// even answers (it waits to hear its own NOTIFY); another instance refuses it from the moment its listener
// delivers the same NOTIFY (PostgreSQL signals every listening backend at the commit; each delivers on its own
// connection, so that moment is not ordered with the answer the client got from A). The tests wait for that
// event on B (never a timer), then require the refusal on the very next request. An instance whose listener is
// not connected serves nothing from memory.

let a: ApiHarness;
let b: ApiHarness;

/** Polls a condition (startup of the listeners, a connection loss being noticed); never a timing assertion. */
const until = (check: () => boolean, what: string): Promise<void> => waitUntil(check, 5000, what);

beforeAll(async () => {
  a = await startApi();
  b = await startApi({}, { sameDatabaseAs: a });
  await until(() => a.services.apiKeys.caching && b.services.apiKeys.caching, 'both change feeds listening');
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function cachedOnBoth(key: string): Promise<void> {
  const before = b.services.apiKeys.cachedKeys;
  for (const api of [a, b]) expect((await api.request('GET', '/v1/models', { token: key })).status).toBe(200);
  // Served from memory from now on: the next request on b reads no key from the database.
  expect(b.services.apiKeys.cachedKeys).toBe(before + 1);
}

test('a key deleted through instance A is refused by instance B on the next request', async () => {
  const account = await a.account('vip');
  const token = await a.accessToken(account);
  const created = await a.request('POST', '/api/v2/keys', { token, body: { name: 'ci' } });
  const other = await a.apiKey(account, 'kept');
  await cachedOnBoth(created.body.key);
  await cachedOnBoth(other);

  const heardOnB = b.services.accountChanges.expect(account.user.id, 5000);
  expect((await a.request('DELETE', `/api/v2/keys/${created.body.id}`, { token })).status).toBe(204);
  // A answered only once it had heard the change itself: it refuses at once.
  expectErrorShape(await a.request('GET', '/v1/models', { token: created.body.key }), 401, 'invalid_token');
  await heardOnB;
  expectErrorShape(await b.request('GET', '/v1/models', { token: created.body.key }), 401, 'invalid_token');
  expectErrorShape(
    await b.request('POST', '/v1/chat/completions', {
      token: created.body.key,
      body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }] },
    }),
    401,
  );
  // The account's other key still works (looked up again).
  expect((await b.request('GET', '/v1/models', { token: other })).status).toBe(200);
});

test('blocking the owner or lowering its plan in SQL stops its cached keys on every instance', async () => {
  const account = await a.account('vip');
  const key = await a.apiKey(account);
  await cachedOnBoth(key);

  // A plain SQL writer has no answer to hold back until the NOTIFY went out, so wait until B heard it (an event).
  let heard = b.services.accountChanges.expect(account.user.id, 5000);
  await a.db.dataSource.query('UPDATE users SET is_blocked = true WHERE id = $1', [account.user.id]);
  await heard;
  expectErrorShape(await b.request('GET', '/v1/models', { token: key }), 403, 'account_blocked');
  expectErrorShape(await a.request('GET', '/v1/models', { token: key }), 403, 'account_blocked');

  heard = b.services.accountChanges.expect(account.user.id, 5000);
  await a.db.dataSource.query(`UPDATE users SET is_blocked = false, plan_slug = 'free' WHERE id = $1`, [account.user.id]);
  await heard;
  expectErrorShape(await b.request('GET', '/v1/models', { token: key }), 403, 'insufficient_plan');

  heard = b.services.accountChanges.expect(account.user.id, 5000);
  await a.db.dataSource.query(`UPDATE users SET plan_slug = 'vip' WHERE id = $1`, [account.user.id]);
  await heard;
  expect((await b.request('GET', '/v1/models', { token: key })).status).toBe(200);
});

test('a password reset that revokes the keys stops them on the other instance', async () => {
  const account = await a.account('vip');
  const key = await a.apiKey(account);
  await cachedOnBoth(key);
  expect((await a.request('POST', '/api/v2/auth/forgot-password', { body: { email: account.email } })).status).toBe(202);
  const mail = a.mails.find((m) => m.to === account.email);
  const resetToken = /token": "([^"]+)"/.exec(mail?.text ?? '')?.[1];
  expect(resetToken).toBeDefined();
  const heardOnB = b.services.accountChanges.expect(account.user.id, 5000);
  const reset = await a.request('POST', '/api/v2/auth/reset-password', {
    body: { token: resetToken, password: 'a-new-password-123', revoke_api_keys: true },
  });
  expect(reset.status).toBe(200);
  expectErrorShape(await a.request('GET', '/v1/models', { token: key }), 401, 'invalid_token');
  await heardOnB;
  expectErrorShape(await b.request('GET', '/v1/models', { token: key }), 401, 'invalid_token');
});

test('while its listener is disconnected an instance caches nothing, and it forgets everything when it listens again', async () => {
  const account = await a.account('vip');
  const key = await a.apiKey(account);
  await cachedOnBoth(key);

  await a.db.dataSource.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'nebula-gen-account-changes'`,
  );
  await until(() => !b.services.apiKeys.caching, 'B noticed its listener is gone');
  expect(b.services.apiKeys.cachedKeys).toBe(0);
  // Nobody hears this deletion, yet B refuses the key: without a live listener every lookup reads the database.
  await a.db.dataSource.query('DELETE FROM api_keys WHERE user_id = $1', [account.user.id]);
  expectErrorShape(await b.request('GET', '/v1/models', { token: key }), 401, 'invalid_token');

  await until(() => a.services.apiKeys.caching && b.services.apiKeys.caching, 'listeners back');
  const fresh = await a.apiKey(account, 'after');
  await cachedOnBoth(fresh);
});

test('a key revoked behind both caches is refused by the next model request on either instance, and nothing is held', async () => {
  const account = await a.account('vip');
  const key = await a.apiKey(account);
  await cachedOnBoth(key);
  // Deleted with the triggers off: no NOTIFY goes out, so neither instance hears of it and both still trust the key
  // they verified. The hold statement checks the key itself, so the revocation holds anyway.
  await a.db.dataSource.transaction(async (m) => {
    await m.query(`SET LOCAL session_replication_role = replica`);
    await m.query('DELETE FROM api_keys WHERE user_id = $1', [account.user.id]);
  });
  for (const api of [a, b]) expect((await api.request('GET', '/v1/models', { token: key })).status).toBe(200);
  const before = await getBalance(a.db.dataSource, account.user.id);
  for (const api of [a, b]) {
    for (const stream of [false, true]) {
      expectErrorShape(
        await api.request('POST', '/v1/chat/completions', {
          token: key,
          body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, stream },
        }),
        401,
        'invalid_token',
      );
    }
  }
  // Requests arriving together are held in one batch statement: each is refused there as well.
  const together = await Promise.all(
    Array.from({ length: 6 }, () =>
      b.request('POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
      }),
    ),
  );
  for (const res of together) expectErrorShape(res, 401, 'invalid_token');
  const [held] = (await a.db.dataSource.query('SELECT count(*)::int AS n FROM generations WHERE user_id = $1', [account.user.id])) as {
    n: number;
  }[];
  expect(held.n).toBe(0);
  expect(await getBalance(a.db.dataSource, account.user.id)).toEqual(before);
});
