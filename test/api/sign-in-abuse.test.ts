// Sign-in abuse across client addresses: the per-account password lockout, the per-email forgot-password limit,
// the per-IP messenger limit and the single use of a Telegram Login Widget payload. The harness runs with
// TRUST_PROXY=loopback, so every request comes from the forwarded address it names.
import crypto from 'node:crypto';
import { identifierKey } from '../../src/core/accounts/lockout';
import { telegramLoginHash } from '../../src/core/accounts/telegram-login';
import { ApiHarness, avoidWindowEdge, BOT_TOKEN, expectErrorShape, randomIp, secondsLeftInWindow, startApi } from './harness';
import { eventually } from '../support/wait';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const login = (email: string, password: string) => api.request('POST', '/api/v2/auth/login', { body: { email, password }, ip: randomIp() });

test('10 wrong passwords from 10 addresses lock password sign-in of the account for 15 minutes, the right one included', async () => {
  const account = await api.account('free');
  for (let i = 0; i < 10; i++) expectErrorShape(await login(account.email, `wrong-${i}`), 401, 'invalid_credentials');

  const locked = await login(account.email, account.password);
  expectErrorShape(locked, 429, 'account_locked');
  expect(locked.body.retry_after).toBeGreaterThan(14 * 60);
  expect(locked.body.retry_after).toBeLessThanOrEqual(15 * 60);
  expect(Number(locked.headers.get('retry-after'))).toBe(locked.body.retry_after);
  expect(locked.body.message).toMatch(/locked for 15 more minutes/);
  // Another account is not affected.
  const other = await api.account('free');
  expect((await login(other.email, other.password)).status).toBe(200);

  // When the lock ends, the right password works and the count starts afresh.
  await api.db.dataSource.query(`UPDATE sign_in_lockouts SET locked_until = now() - interval '1 second' WHERE identifier_hash = $1`, [
    identifierKey({ email: account.email }),
  ]);
  expect((await login(account.email, account.password)).status).toBe(200);
  expectErrorShape(await login(account.email, 'wrong again'), 401, 'invalid_credentials');
});

/** What a client can see of an answer: status, Retry-After, and the body with its numbers and texts as types. */
function shapeOf(res: { status: number; headers: Headers; body: Record<string, unknown> }) {
  const body = Object.fromEntries(Object.entries(res.body).map(([k, v]) => [k, k === 'error' ? v : typeof v]));
  return { status: res.status, retryAfter: res.headers.get('retry-after') !== null, body };
}

test('an unknown email answers exactly like a known one: 401 ten times, then the same 429 account_locked', async () => {
  const known = await api.account('free');
  const unknown = `nobody-${crypto.randomBytes(4).toString('hex')}@example.com`;
  const answers = async (email: string) => {
    const all = [];
    for (let i = 0; i < 11; i++) all.push(await login(email, `wrong-${i}`));
    return all;
  };
  const [ofKnown, ofUnknown] = [await answers(known.email), await answers(unknown)];
  expect(ofUnknown.map(shapeOf)).toEqual(ofKnown.map(shapeOf));
  expect(ofKnown.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(401));
  for (const locked of [ofKnown[10], ofUnknown[10]]) {
    expectErrorShape(locked, 429, 'account_locked');
    expect(locked.body.retry_after).toBeGreaterThan(14 * 60);
  }
  expect(ofUnknown[10].body.message).toBe(ofKnown[10].body.message);
  expect(ofUnknown[3].body).toEqual(ofKnown[3].body);
  // The count is per normalised email: upper case and spaces are the same identifier.
  expectErrorShape(await login(`  ${unknown.toUpperCase()} `, 'x'), 429, 'account_locked');
  // The phone sign-in is counted the same way.
  const phone = `+4420${crypto.randomInt(10_000_000, 99_999_999)}`;
  for (let i = 0; i < 10; i++) {
    const res = await api.request('POST', '/api/v2/auth/login-phone', { body: { phone, password: 'nope' }, ip: randomIp() });
    expectErrorShape(res, 401, 'invalid_credentials');
  }
  expectErrorShape(
    await api.request('POST', '/api/v2/auth/login-phone', { body: { phone, password: 'nope' }, ip: randomIp() }),
    429,
    'account_locked',
  );
});

test('an unknown email is not answered faster: it costs one argon2 verification too', async () => {
  const known = await api.account('free');
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const timed = async (email: string) => {
    const started = process.hrtime.bigint();
    expectErrorShape(await login(email, 'wrong password'), 401);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const knownMs: number[] = [];
  const unknownMs: number[] = [];
  // Interleaved, under the lock threshold of either email.
  for (let i = 0; i < 9; i++) {
    knownMs.push(await timed(known.email));
    unknownMs.push(await timed(`ghost-${i}-${crypto.randomBytes(3).toString('hex')}@example.com`));
  }
  // Without the dummy verification the unknown email answered about three times faster; a ratio, not a time limit.
  expect(median(unknownMs) / median(knownMs)).toBeGreaterThan(0.6);
});

test('failures spread over more than 15 minutes do not add up', async () => {
  const account = await api.account('free');
  for (let i = 0; i < 9; i++) await login(account.email, `wrong-${i}`);
  await api.db.dataSource.query(
    `UPDATE sign_in_lockouts SET window_started_at = now() - interval '16 minutes' WHERE identifier_hash = $1`,
    [identifierKey({ email: account.email })],
  );
  for (let i = 0; i < 9; i++) expectErrorShape(await login(account.email, `wrong-${i}`), 401);
  expect((await login(account.email, account.password)).status).toBe(200);
});

test('parallel wrong passwords lock the account exactly once they reach 10', async () => {
  const account = await api.account('free');
  const results = await Promise.all(Array.from({ length: 25 }, (_, i) => login(account.email, `wrong-${i}`)));
  expect(results.every((r) => r.status === 401 || r.status === 429)).toBe(true);
  expectErrorShape(await login(account.email, account.password), 429, 'account_locked');
});

test('a password reset lifts the lock and ends the refresh sessions; API keys survive unless asked', async () => {
  const account = await api.account('vip');
  const key = await api.apiKey(account);
  const session = await login(account.email, account.password);
  for (let i = 0; i < 10; i++) await login(account.email, `wrong-${i}`);
  expectErrorShape(await login(account.email, account.password), 429, 'account_locked');

  const reset = async (revoke?: boolean) => {
    api.mails.length = 0;
    expect((await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: account.email } })).status).toBe(202);
    const mail = await eventually(() => api.mails.at(-1), 5000, 'the reset mail');
    const token = /"token": "([^"]+)"/.exec(mail.text)![1];
    return api.request('POST', '/api/v2/auth/reset-password', {
      body: { token, password: 'brand new password', ...(revoke === undefined ? {} : { revoke_api_keys: revoke }) },
    });
  };
  expect((await reset()).status).toBe(200);
  expect((await login(account.email, 'brand new password')).status).toBe(200);
  const refreshed = await api.request('POST', '/api/v2/auth/refresh', { body: { refresh_token: session.body.refresh_token } });
  expectErrorShape(refreshed, 401);
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: session.body.access_token }), 401, 'invalid_token');
  expect((await api.request('GET', '/api/v2/user/me', { token: key })).status).toBe(200);

  const revoking = await reset(true);
  expect(revoking.status).toBe(200);
  expect(revoking.body.message).toMatch(/1 API key was revoked/);
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: key }), 401, 'invalid_token');
});

test('forgot-password: 3 an hour per email, whatever the address', async () => {
  const account = await api.account('free');
  for (let i = 0; i < 3; i++) {
    expect((await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: account.email }, ip: randomIp() })).status).toBe(
      202,
    );
  }
  const atMost = secondsLeftInWindow(3600);
  const refused = await api.request('POST', '/api/v2/auth/forgot-password', {
    body: { email: account.email.toUpperCase() },
    ip: randomIp(),
  });
  const atLeast = secondsLeftInWindow(3600);
  expectErrorShape(refused, 429, 'rate_limit_exceeded');
  // The window is the clock hour: Retry-After counts down to its end.
  expect(refused.body.retry_after).toBeGreaterThanOrEqual(Math.max(1, atLeast));
  expect(refused.body.retry_after).toBeLessThanOrEqual(atMost);
  // The same for an email without an account (no enumeration through the limit).
  for (let i = 0; i < 3; i++)
    await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: 'ghost@example.com' }, ip: randomIp() });
  expectErrorShape(
    await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: 'ghost@example.com' }, ip: randomIp() }),
    429,
  );
});

function widgetPayload(overrides: Record<string, string | number> = {}): Record<string, string | number> {
  const data = { id: 300000 + crypto.randomInt(1_000_000), first_name: 'Ann', auth_date: Math.floor(Date.now() / 1000) - 30, ...overrides };
  return { ...data, hash: telegramLoginHash(data, BOT_TOKEN) };
}

test('a Telegram Login Widget payload signs in once; a replay is refused', async () => {
  const payload = widgetPayload();
  expect((await api.request('POST', '/api/v2/auth/messenger', { body: payload })).status).toBe(200);
  const replay = await api.request('POST', '/api/v2/auth/messenger', { body: payload });
  expectErrorShape(replay, 401, 'login_replayed');
  // Upper-case hex is the same signature.
  expectErrorShape(
    await api.request('POST', '/api/v2/auth/messenger', { body: { ...payload, hash: String(payload.hash).toUpperCase() } }),
    401,
    'login_replayed',
  );
  const parallel = widgetPayload();
  const answers = await Promise.all(Array.from({ length: 8 }, () => api.request('POST', '/api/v2/auth/messenger', { body: parallel })));
  expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
});

test('/auth/messenger is limited per address: 10 a minute', async () => {
  await avoidWindowEdge(60);
  const ip = randomIp();
  for (let i = 0; i < 10; i++)
    expect((await api.request('POST', '/api/v2/auth/messenger', { body: widgetPayload(), ip })).status).toBe(200);
  expectErrorShape(await api.request('POST', '/api/v2/auth/messenger', { body: widgetPayload(), ip }), 429, 'rate_limit_exceeded');
});
