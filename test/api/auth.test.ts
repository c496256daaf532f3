import { decodeJwt } from 'jose';
import { z } from 'zod';
import { SessionSchema } from '../../src/api/openapi/components';
import { UserEntity } from '../../src/db/entities';
import {
  ApiHarness,
  avoidWindowEdge,
  expectErrorShape,
  randomIp,
  refreshCookieOf,
  refreshSetCookie,
  secondsLeftInWindow,
  startApi,
} from './harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const cookie = (token: string) => ({ Cookie: `nb_refresh=${token}` });

describe('register', () => {
  test('creates a Starter account with the 50-token grant, signs in and sets the refresh cookie', async () => {
    const res = await api.request('POST', '/api/v2/auth/register', {
      body: { email: 'New.Person@Example.com', password: 'correct horse', name: 'New Person' },
    });
    expect(res.status).toBe(201);
    expect(z.strictObject(SessionSchema.shape).safeParse(res.body).success).toBe(true);
    expect(res.body).toMatchObject({
      token_type: 'bearer',
      expires_in: 900,
      user: { name: 'New Person', email: 'new.person@example.com', plan: 'free', token_balance: 50 },
    });
    expect(Number.isInteger(res.body.user.id)).toBe(true);
    const claims = decodeJwt(res.body.access_token);
    expect(claims.sub).toBe(String(res.body.user.id));
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(900);

    const setCookie = refreshSetCookie(res)!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/Secure/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\/api\/v2\/auth/);
    const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie)![1]);
    expect(maxAge).toBeGreaterThan(30 * 86400 - 60);
    expect(maxAge).toBeLessThanOrEqual(30 * 86400);
    expect(refreshCookieOf(res)).toBe(res.body.refresh_token);

    const me = await api.request('GET', '/api/v2/user/me', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'new.person@example.com', token_balance: 50, auth_methods: { email: true } });
  });

  test('the name defaults to the part of the email before @', async () => {
    const res = await api.request('POST', '/api/v2/auth/register', { body: { email: 'plain@example.com', password: 'long enough' } });
    expect(res.status).toBe(201);
    expect(res.body.user.name).toBe('plain');
  });

  test('an email that exists answers 409 naming the field; a short password 400 naming the field', async () => {
    await api.request('POST', '/api/v2/auth/register', { body: { email: 'taken@example.com', password: 'long enough' } });
    const dup = await api.request('POST', '/api/v2/auth/register', { body: { email: 'TAKEN@example.com', password: 'another one' } });
    expectErrorShape(dup, 409, 'account_exists');
    expect(dup.body.field).toBe('email');

    const weak = await api.request('POST', '/api/v2/auth/register', { body: { email: 'weak@example.com', password: 'short' } });
    expectErrorShape(weak, 400, 'validation_error');
    expect(weak.body.field).toBe('password');
    const badEmail = await api.request('POST', '/api/v2/auth/register', { body: { email: 'not-an-email', password: 'long enough' } });
    expectErrorShape(badEmail, 400, 'validation_error');
    expect(badEmail.body.field).toBe('email');
  });
});

describe('login', () => {
  test('email and password: the same token pair as the identity-provider sign-in', async () => {
    const account = await api.account('basic');
    const res = await api.request('POST', '/api/v2/auth/login', {
      body: { email: account.email.toUpperCase(), password: account.password },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 900,
      user: { id: account.user.id, name: account.user.name, email: account.email, plan: 'basic', token_balance: 1000 + 0, is_admin: false },
    });
    expect(refreshCookieOf(res)).toBe(res.body.refresh_token);
  });

  test('a wrong password and an unknown email both answer 401 invalid_credentials', async () => {
    const account = await api.account();
    const wrong = await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: 'not-it' } });
    expectErrorShape(wrong, 401, 'invalid_credentials');
    const unknown = await api.request('POST', '/api/v2/auth/login', { body: { email: 'nobody@example.com', password: 'whatever' } });
    expectErrorShape(unknown, 401, 'invalid_credentials');
    expect(unknown.body.message).toBe(wrong.body.message);
    expect(refreshSetCookie(wrong)).toBeUndefined();
  });

  test('phone (E.164) and password; +7 numbers need exactly 10 digits', async () => {
    const account = await api.account('free', { phone: '+79991234567' });
    const res = await api.request('POST', '/api/v2/auth/login-phone', { body: { phone: '+79991234567', password: account.password } });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(account.user.id);
    expect(res.body.refresh_token).toEqual(expect.any(String));

    const wrong = await api.request('POST', '/api/v2/auth/login-phone', { body: { phone: '+79991234567', password: 'nope' } });
    expectErrorShape(wrong, 401, 'invalid_credentials');
    const short = await api.request('POST', '/api/v2/auth/login-phone', { body: { phone: '+7999123456', password: 'x' } });
    expectErrorShape(short, 400, 'validation_error');
    expect(short.body.field).toBe('phone');
    const local = await api.request('POST', '/api/v2/auth/login-phone', { body: { phone: '89991234567', password: 'x' } });
    expectErrorShape(local, 400, 'validation_error');
  });

  test('a blocked account cannot sign in, and its live tokens stop working', async () => {
    const account = await api.account();
    const token = await api.accessToken(account);
    await api.db.dataSource.getRepository(UserEntity).update({ id: account.user.id }, { isBlocked: true });
    expectErrorShape(
      await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } }),
      403,
      'account_blocked',
    );
    expectErrorShape(await api.request('GET', '/api/v2/user/me', { token }), 403, 'account_blocked');
  });
});

describe('refresh tokens', () => {
  test('rotate on every refresh; the new access token works; reusing a rotated token ends the whole family', async () => {
    const account = await api.account();
    const login = await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } });
    const first = refreshCookieOf(login)!;

    const r1 = await api.request('POST', '/api/v2/auth/refresh', { headers: cookie(first) });
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 900 });
    const second = refreshCookieOf(r1)!;
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect((await api.request('GET', '/api/v2/user/me', { token: r1.body.access_token })).status).toBe(200);

    const r2 = await api.request('POST', '/api/v2/auth/refresh', { headers: cookie(second) });
    expect(r2.status).toBe(200);
    const third = refreshCookieOf(r2)!;

    // The first token was rotated: presenting it again is reuse. The family dies, including `third` and the
    // access tokens of the session.
    const reuse = await api.request('POST', '/api/v2/auth/refresh', { headers: cookie(first) });
    expectErrorShape(reuse, 401, 'invalid_token');
    expect(reuse.body.message).toMatch(/reuse/i);
    expect(refreshSetCookie(reuse)).toMatch(/Max-Age=0/);
    expectErrorShape(await api.request('POST', '/api/v2/auth/refresh', { headers: cookie(third) }), 401, 'invalid_token');
    const me = await api.request('GET', '/api/v2/user/me', { token: r2.body.access_token });
    expectErrorShape(me, 401, 'invalid_token');
    expect(me.body.message).toBe('Invalid or expired token');

    // Another session of the same user is untouched.
    expect((await api.request('GET', '/api/v2/user/me', { token: await api.accessToken(account) })).status).toBe(200);
  });

  test('two concurrent refreshes with one token: exactly one succeeds', async () => {
    const account = await api.account();
    const login = await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } });
    const token = refreshCookieOf(login)!;
    const results = await Promise.all([1, 2, 3].map(() => api.request('POST', '/api/v2/auth/refresh', { headers: cookie(token) })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  });

  test('the body variant for cookie-less clients answers the rotated token in the body', async () => {
    const account = await api.account();
    const login = await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } });
    const res = await api.request('POST', '/api/v2/auth/refresh', { body: { refresh_token: login.body.refresh_token } });
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).toEqual(expect.any(String));
    expect(res.body.refresh_token).not.toBe(login.body.refresh_token);
  });

  test('no token: 401 Not authenticated; a made-up or expired token: 401 invalid_token', async () => {
    const none = await api.request('POST', '/api/v2/auth/refresh');
    expectErrorShape(none, 401, 'not_authenticated');
    expect(none.body.message).toBe('Not authenticated');
    expectErrorShape(await api.request('POST', '/api/v2/auth/refresh', { headers: cookie('x'.repeat(43)) }), 401, 'invalid_token');

    const account = await api.account();
    const login = await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } });
    await api.db.dataSource.query(`UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [
      account.user.id,
    ]);
    expectErrorShape(await api.request('POST', '/api/v2/auth/refresh', { headers: cookie(refreshCookieOf(login)!) }), 401, 'invalid_token');
  });

  test('logout revokes the family, clears the cookie and ends the access token at once', async () => {
    const account = await api.account();
    const login = await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } });
    const token = refreshCookieOf(login)!;
    const out = await api.request('POST', '/api/v2/auth/logout', { headers: cookie(token) });
    expect(out.status).toBe(204);
    expect(refreshSetCookie(out)).toMatch(/nb_refresh=;.*Max-Age=0/);
    expectErrorShape(await api.request('POST', '/api/v2/auth/refresh', { headers: cookie(token) }), 401, 'invalid_token');
    expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: login.body.access_token }), 401, 'invalid_token');
    // Logging out without a session is not an error.
    expect((await api.request('POST', '/api/v2/auth/logout')).status).toBe(204);
  });

  test('logout with only the access token ends that session', async () => {
    const account = await api.account();
    const token = await api.accessToken(account);
    expect((await api.request('POST', '/api/v2/auth/logout', { token })).status).toBe(204);
    expectErrorShape(await api.request('GET', '/api/v2/user/me', { token }), 401, 'invalid_token');
  });
});

describe('password recovery', () => {
  test('forgot-password mails a single-use token; reset sets the password and ends every session', async () => {
    const account = await api.account();
    const oldSession = await api.accessToken(account);
    const before = api.mails.length;
    const res = await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: account.email } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'ok', message: expect.any(String) });
    expect(api.mails).toHaveLength(before + 1);
    const mail = api.mails[api.mails.length - 1];
    expect(mail.to).toBe(account.email);
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
    expect(mail.text).toContain(`${api.baseUrl}/reset-password?token=`);

    // The token is stored hashed only.
    const stored = await api.db.dataSource.query('SELECT token_hash FROM password_resets WHERE user_id = $1', [account.user.id]);
    expect(stored[0].token_hash).not.toContain(token);

    const reset = await api.request('POST', '/api/v2/auth/reset-password', { body: { token, password: 'brand new password' } });
    expect(reset.status).toBe(200);
    expect(reset.body.status).toBe('ok');
    expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: oldSession }), 401, 'invalid_token');
    expectErrorShape(await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } }), 401);
    expect(
      (await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: 'brand new password' } })).status,
    ).toBe(200);

    const again = await api.request('POST', '/api/v2/auth/reset-password', { body: { token, password: 'another password' } });
    expectErrorShape(again, 400, 'invalid_reset_token');
  });

  test('an unknown email gets the same answer and no mail; an expired token is refused', async () => {
    const before = api.mails.length;
    const res = await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: 'ghost@example.com' } });
    expect(res.status).toBe(202);
    expect(api.mails).toHaveLength(before);

    const account = await api.account();
    await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: account.email } });
    const token = /token=([A-Za-z0-9_-]+)/.exec(api.mails[api.mails.length - 1].text)![1];
    await api.db.dataSource.query(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [
      account.user.id,
    ]);
    expectErrorShape(
      await api.request('POST', '/api/v2/auth/reset-password', { body: { token, password: 'long enough' } }),
      400,
      'invalid_reset_token',
    );
  });

  test('a newer reset token replaces the older one', async () => {
    const account = await api.account();
    await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: account.email } });
    const older = /token=([A-Za-z0-9_-]+)/.exec(api.mails[api.mails.length - 1].text)![1];
    await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: account.email } });
    const newer = /token=([A-Za-z0-9_-]+)/.exec(api.mails[api.mails.length - 1].text)![1];
    expectErrorShape(await api.request('POST', '/api/v2/auth/reset-password', { body: { token: older, password: 'long enough' } }), 400);
    expect((await api.request('POST', '/api/v2/auth/reset-password', { body: { token: newer, password: 'long enough' } })).status).toBe(
      200,
    );
  });
});

describe('per-IP sign-in limits', () => {
  beforeEach(() => avoidWindowEdge(60));

  test('login: 10 per minute per address, then 429 with Retry-After; other addresses are unaffected', async () => {
    const ip = randomIp();
    // An email of its own: 10 failures with one email lock it (known or not), which is another limit.
    const body = { email: 'nobody-per-ip@example.com', password: 'wrong' };
    for (let i = 0; i < 10; i++) expect((await api.request('POST', '/api/v2/auth/login', { body, ip })).status).toBe(401);
    const refused = await api.request('POST', '/api/v2/auth/login', { body, ip });
    expectErrorShape(refused, 429, 'rate_limit_exceeded');
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(refused.body.retry_after).toBe(retry);
    // Another address is not limited (another email: this one's 10 failures now lock it, known or not).
    const elsewhere = { ...body, email: 'nobody-else@example.com' };
    expect((await api.request('POST', '/api/v2/auth/login', { body: elsewhere, ip: randomIp() })).status).toBe(401);
    // The proxy-reported (last) address counts, not a client-forged first entry.
    const forged = await api.request('POST', '/api/v2/auth/login', { body, headers: { 'X-Forwarded-For': `1.2.3.4, ${ip}` } });
    expect(forged.status).toBe(429);
  });

  test('login-phone and register: 10 per minute per address', async () => {
    for (const [path, body] of [
      ['/api/v2/auth/login-phone', { phone: '+15551234567', password: 'x' }],
      ['/api/v2/auth/register', { email: 'x', password: 'x' }],
    ] as const) {
      const ip = randomIp();
      for (let i = 0; i < 10; i++) expect((await api.request('POST', path, { body, ip })).status).not.toBe(429);
      expectErrorShape(await api.request('POST', path, { body, ip }), 429, 'rate_limit_exceeded');
    }
  });

  test('forgot-password: 3 per hour per address', async () => {
    const ip = randomIp();
    for (let i = 0; i < 3; i++) {
      expect((await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: 'a@example.com' }, ip })).status).toBe(202);
    }
    // The window is the clock hour: Retry-After counts down to its end (a minute before the hour, it is under 60).
    const atMost = secondsLeftInWindow(3600);
    const refused = await api.request('POST', '/api/v2/auth/forgot-password', { body: { email: 'a@example.com' }, ip });
    const atLeast = secondsLeftInWindow(3600);
    expectErrorShape(refused, 429, 'rate_limit_exceeded');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, atLeast));
    expect(retryAfter).toBeLessThanOrEqual(atMost);
  });
});
