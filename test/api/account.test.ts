import { ApiHarness, expectErrorShape, startApi } from './harness';

// The account holder's own account: change the password (other sessions end), resend the verification mail, see
// and end sessions, delete the account (data gone, ledger rows kept anonymised).

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function signIn(email: string, password: string, userAgent: string) {
  const res = await api.request('POST', '/api/v2/auth/login', { body: { email, password }, headers: { 'User-Agent': userAgent } });
  expect(res.status).toBe(200);
  return { token: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

test('sessions list with user agents and the current one; revoking one ends its access token', async () => {
  const account = await api.account('pro');
  const laptop = await signIn(account.email, account.password, 'Laptop Firefox');
  const phone = await signIn(account.email, account.password, 'Phone Safari');

  const list = await api.request('GET', '/api/v2/auth/sessions', { token: laptop.token });
  expect(list.status).toBe(200);
  expect(list.body.sessions).toHaveLength(2);
  expect(list.body.sessions.map((s: { user_agent: string; current: boolean }) => [s.user_agent, s.current])).toEqual([
    ['Phone Safari', false],
    ['Laptop Firefox', true],
  ]);
  const phoneSession = list.body.sessions[0].id;

  expect((await api.request('DELETE', `/api/v2/auth/sessions/${phoneSession}`, { token: laptop.token })).status).toBe(204);
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: phone.token }), 401, 'invalid_token');
  expectErrorShape(await api.request('DELETE', `/api/v2/auth/sessions/${phoneSession}`, { token: laptop.token }), 404, 'not_found');
  expectErrorShape(await api.request('DELETE', '/api/v2/auth/sessions/not-a-uuid', { token: laptop.token }), 400, 'validation_error');
  expect((await api.request('GET', '/api/v2/auth/sessions', { token: laptop.token })).body.sessions).toHaveLength(1);

  // Another account's session cannot be ended.
  const other = await api.account('pro');
  const otherToken = await api.accessToken(other);
  const [mine] = (await api.request('GET', '/api/v2/auth/sessions', { token: laptop.token })).body.sessions;
  expectErrorShape(await api.request('DELETE', `/api/v2/auth/sessions/${mine.id}`, { token: otherToken }), 404, 'not_found');
});

test('change password: the current one is checked, other sessions end, this one stays, the new password signs in', async () => {
  const account = await api.account('pro');
  const here = await signIn(account.email, account.password, 'Here');
  const elsewhere = await signIn(account.email, account.password, 'Elsewhere');

  expectErrorShape(
    await api.request('POST', '/api/v2/auth/change-password', {
      token: here.token,
      body: { current_password: 'wrong-one', new_password: 'new-password-1' },
    }),
    401,
    'invalid_credentials',
  );
  expectErrorShape(
    await api.request('POST', '/api/v2/auth/change-password', {
      token: here.token,
      body: { current_password: account.password, new_password: 'short' },
    }),
    400,
    'validation_error',
  );
  const changed = await api.request('POST', '/api/v2/auth/change-password', {
    token: here.token,
    body: { current_password: account.password, new_password: 'new-password-1' },
  });
  expect(changed.status).toBe(200);
  expect(changed.body).toEqual({ status: 'ok', sessions_ended: 1 });

  expect((await api.request('GET', '/api/v2/user/me', { token: here.token })).status).toBe(200);
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: elsewhere.token }), 401, 'invalid_token');
  const refreshed = await api.request('POST', '/api/v2/auth/refresh', { body: { refresh_token: elsewhere.refresh } });
  expect(refreshed.status).toBe(401);
  expectErrorShape(await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } }), 401);
  expect((await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: 'new-password-1' } })).status).toBe(
    200,
  );

  // An API key cannot manage the account.
  const vip = await api.account('vip');
  const key = await api.apiKey(vip);
  expectErrorShape(
    await api.request('POST', '/api/v2/auth/change-password', {
      token: key,
      body: { current_password: vip.password, new_password: 'new-password-1' },
    }),
    403,
    'session_required',
  );
});

test('resend verification: a new link to the address, on the host the user came in on (loopback, no PUBLIC_URL)', async () => {
  const email = `fresh-${Date.now()}@example.com`;
  const registered = await api.request('POST', '/api/v2/auth/register', { body: { email, password: 'long-enough-1' } });
  expect(registered.status).toBe(201);
  const token = registered.body.access_token;
  const before = api.mails.filter((m) => m.to === email).length;
  const res = await api.request('POST', '/api/v2/auth/resend-verification', { token });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('sent');
  const mails = api.mails.filter((m) => m.to === email);
  expect(mails).toHaveLength(before + 1);
  const link = /(http\S+verify-email\?token=\S+)/.exec(mails[mails.length - 1].text)![1];
  expect(new URL(link).origin).toBe(api.baseUrl);

  const verified = await api.request('POST', '/api/v2/auth/verify-email', { body: { token: new URL(link).searchParams.get('token') } });
  expect(verified.status).toBe(200);
  const again = await api.request('POST', '/api/v2/auth/resend-verification', { token });
  expect(again.body.status).toBe('already_verified');
});

test('delete account: the password is checked, the data is gone, the ledger rows stay anonymised', async () => {
  const account = await api.account('vip', { planTokens: 1000 });
  const token = await api.accessToken(account);
  const key = await api.apiKey(account);
  const chat = await api.request('POST', '/v1/chat/completions', {
    token: key,
    body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 },
  });
  expect(chat.status).toBe(200);
  const { ds } = api.services;
  const ledgerBefore = await ds.query('SELECT count(*)::int AS n FROM ledger_entries WHERE user_id = $1', [account.user.id]);
  expect(ledgerBefore[0].n).toBeGreaterThan(0);

  expectErrorShape(await api.request('POST', '/api/v2/user/delete', { token, body: { password: 'wrong' } }), 401, 'invalid_credentials');
  expect((await api.request('POST', '/api/v2/user/delete', { token, body: { password: account.password } })).status).toBe(204);

  for (const table of ['users', 'generations', 'api_keys', 'refresh_tokens', 'balances']) {
    const column = table === 'users' ? 'id' : 'user_id';
    const rows = await ds.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [account.user.id]);
    expect({ table, n: rows[0].n }).toEqual({ table, n: 0 });
  }
  const kept = await ds.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE user_id IS NULL AND reference LIKE 'gen:%'`);
  expect(kept[0].n).toBeGreaterThanOrEqual(ledgerBefore[0].n - 1);
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: key }), 401, 'invalid_token');
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token }), 401);
});
