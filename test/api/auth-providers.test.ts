import crypto from 'node:crypto';
import { telegramLoginHash } from '../../src/core/accounts/telegram-login';
import { SignJWT } from 'jose';
import { startOidcProvider, type IdTokenOptions, type OidcProvider } from '../support/oidc-provider';
import { ApiHarness, BOT_TOKEN, expectErrorShape, refreshCookieOf, startApi } from './harness';

let idp: OidcProvider;
let api: ApiHarness;
let unconfigured: ApiHarness;

beforeAll(async () => {
  idp = await startOidcProvider();
  api = await startApi(idp.env);
  unconfigured = await startApi({ BOT_TOKEN: '' });
});
afterAll(async () => {
  await api.close();
  await unconfigured.close();
  await idp.close();
});

// ---------- Telegram Login Widget ----------

function widgetPayload(overrides: Record<string, string | number> = {}, botToken = BOT_TOKEN): Record<string, string | number> {
  const data: Record<string, string | number> = {
    id: 100000 + crypto.randomInt(1_000_000),
    first_name: 'Ann',
    username: `ann_${crypto.randomBytes(3).toString('hex')}`,
    auth_date: Math.floor(Date.now() / 1000) - 30,
    ...overrides,
  };
  return { ...data, hash: telegramLoginHash(data, botToken) };
}

describe('POST /auth/messenger (Telegram Login Widget)', () => {
  test('a valid payload creates the account on first sign-in and signs in to it afterwards', async () => {
    const payload = widgetPayload({ last_name: 'Lee', photo_url: 'https://t.me/i/userpic/320/ann.jpg' });
    const first = await api.request('POST', '/api/v2/auth/messenger', { body: payload });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 900,
      is_new_user: true,
      user: { id: expect.any(Number), name: 'Ann Lee', email: null, plan: 'free', token_balance: 50, is_admin: false },
    });
    expect(refreshCookieOf(first)).toEqual(expect.any(String));

    const me = await api.request('GET', '/api/v2/user/me', { token: first.body.access_token });
    expect(me.body).toMatchObject({
      messenger_username: payload.username,
      email: null,
      avatar_url: 'https://t.me/i/userpic/320/ann.jpg',
      auth_methods: { messenger: true, identity_provider: false, email: false },
    });

    // A later sign-in is a new widget payload (a replayed one is refused, see sign-in-abuse.test.ts).
    const later = { id: payload.id, username: payload.username, auth_date: Number(payload.auth_date) + 5 };
    const again = await api.request('POST', '/api/v2/auth/messenger', { body: widgetPayload(later) });
    expect(again.status).toBe(200);
    expect(again.body.is_new_user).toBe(false);
    expect(again.body.user.id).toBe(first.body.user.id);
  });

  test('a tampered payload is refused', async () => {
    const payload = widgetPayload();
    const res = await api.request('POST', '/api/v2/auth/messenger', { body: { ...payload, id: Number(payload.id) + 1 } });
    expectErrorShape(res, 401, 'invalid_credentials');
    const renamed = await api.request('POST', '/api/v2/auth/messenger', { body: { ...payload, first_name: 'Eve' } });
    expectErrorShape(renamed, 401, 'invalid_credentials');
    const otherBot = await api.request('POST', '/api/v2/auth/messenger', { body: widgetPayload({}, '999:another-bot') });
    expectErrorShape(otherBot, 401, 'invalid_credentials');
  });

  test('every received field is part of the signed data', async () => {
    const signedExtra = widgetPayload({ allows_write_to_pm: 'true' });
    expect((await api.request('POST', '/api/v2/auth/messenger', { body: signedExtra })).status).toBe(200);
    const unsignedExtra = { ...widgetPayload(), allows_write_to_pm: 'true' };
    expectErrorShape(await api.request('POST', '/api/v2/auth/messenger', { body: unsignedExtra }), 401, 'invalid_credentials');
  });

  test('a payload older than 24 hours is refused even with a valid signature', async () => {
    const stale = widgetPayload({ auth_date: Math.floor(Date.now() / 1000) - 86_400 - 60 });
    const res = await api.request('POST', '/api/v2/auth/messenger', { body: stale });
    expectErrorShape(res, 401, 'invalid_credentials');
    expect(res.body.message).toMatch(/old/);
    const fresh = widgetPayload({ auth_date: Math.floor(Date.now() / 1000) - 86_400 + 60 });
    expect((await api.request('POST', '/api/v2/auth/messenger', { body: fresh })).status).toBe(200);
  });

  test('a malformed payload is a 400 naming the field; without a bot token the method is unavailable', async () => {
    const bad = await api.request('POST', '/api/v2/auth/messenger', { body: { ...widgetPayload(), hash: 'xyz' } });
    expectErrorShape(bad, 400, 'validation_error');
    expect(bad.body.field).toBe('hash');
    const noId = await api.request('POST', '/api/v2/auth/messenger', { body: { ...widgetPayload(), id: 'abc' } });
    expect(noId.body.field).toBe('id');
    expectErrorShape(await unconfigured.request('POST', '/api/v2/auth/messenger', { body: widgetPayload() }), 503, 'sign_in_unavailable');
  });
});

// ---------- OpenID Connect ID token ----------

const idToken = (o?: IdTokenOptions) => idp.idToken(o);

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('POST /auth/idp (OIDC ID token against a JWKS)', () => {
  test('a valid token creates the account, answers the token pair, and signs in to it afterwards', async () => {
    const sub = `sub-${crypto.randomUUID()}`;
    const claims = { email: 'Idp.User@Example.com', name: 'Idp User' };
    const first = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: await idToken({ sub, claims }) } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 900,
      is_new_user: true,
      user: { id: expect.any(Number), name: 'Idp User', email: 'idp.user@example.com', plan: 'free', token_balance: 50, is_admin: false },
    });
    const me = await api.request('GET', '/api/v2/user/me', { token: first.body.access_token });
    expect(me.body.auth_methods).toEqual({ messenger: false, identity_provider: true, email: false });

    const again = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: await idToken({ sub, claims }) } });
    expect(again.body).toMatchObject({ is_new_user: false, user: { id: first.body.user.id } });
  });

  test('a verified email of an existing account links the identity to it', async () => {
    const account = await api.account('pro');
    const res = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: await idToken({ claims: { email: account.email } }) } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ is_new_user: false, user: { id: account.user.id, plan: 'pro' } });
  });

  test('an unverified email is not linked to the account that has it', async () => {
    const account = await api.account();
    const token = await idToken({ claims: { email: account.email, email_verified: false } });
    const res = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: token } });
    expect(res.status).toBe(200);
    expect(res.body.is_new_user).toBe(true);
    expect(res.body.user.id).not.toBe(account.user.id);
    expect(res.body.user.email).toBeNull();
  });

  test.each([
    ['the wrong audience', () => idToken({ aud: 'someone-else' })],
    ['an expired token', () => idToken({ expiresIn: -3600 })],
    ['another issuer', () => idToken({ iss: 'https://evil.test' })],
    ['a key that is not in the JWKS', () => idToken({ key: idp.foreignKey })],
    [
      'alg none',
      async () => {
        const now = Math.floor(Date.now() / 1000);
        return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: idp.issuer, aud: idp.clientId, sub: 'x', iat: now, exp: now + 600 })}.`;
      },
    ],
    [
      'HS256 signed with the client id (algorithm confusion)',
      async () => {
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({})
          .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
          .setIssuer(idp.issuer)
          .setAudience(idp.clientId)
          .setSubject('x')
          .setIssuedAt(now)
          .setExpirationTime(now + 600)
          .sign(new TextEncoder().encode(idp.clientId));
      },
    ],
    ['garbage', async () => 'not.a.jwt'],
  ])('%s is refused with 401', async (_name, make) => {
    const res = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: await make() } });
    expectErrorShape(res, 401, 'invalid_token');
    expect(res.body.message).toBe('Invalid identity token');
  });

  test('the older code + redirect_uri variant answers 400 with a clear message; a missing token names the field', async () => {
    const res = await api.request('POST', '/api/v2/auth/idp', { body: { code: 'abc', redirect_uri: 'https://app.test/cb' } });
    expectErrorShape(res, 400, 'unsupported_sign_in_variant');
    expect(res.body.message).toMatch(/id_token/);
    const missing = await api.request('POST', '/api/v2/auth/idp', { body: {} });
    expectErrorShape(missing, 400, 'validation_error');
    expect(missing.body.field).toBe('id_token');
  });

  test('an ID token signs in once: a second use is refused, also by another instance on the same database', async () => {
    const token = await idToken({ claims: { email: `once-${crypto.randomBytes(3).toString('hex')}@example.com` } });
    expect((await api.request('POST', '/api/v2/auth/idp', { body: { id_token: token } })).status).toBe(200);
    const replay = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: token } });
    expectErrorShape(replay, 401, 'login_replayed');
    expect(replay.body.message).toMatch(/identity token was already used/);

    const second = await startApi(idp.env, { sameDatabaseAs: api });
    try {
      expectErrorShape(await second.request('POST', '/api/v2/auth/idp', { body: { id_token: token } }), 401, 'login_replayed');
      // A fresh token of the same identity signs in on either instance.
      const again = await second.request('POST', '/api/v2/auth/idp', { body: { id_token: await idToken() } });
      expect(again.status).toBe(200);
      // Parallel uses of one token across both instances: exactly one signs in.
      const shared = await idToken();
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? second : api).request('POST', '/api/v2/auth/idp', { body: { id_token: shared } })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401, 401, 401, 401]);
    } finally {
      await second.close();
    }
  });

  test('a token without jti is remembered by its hash', async () => {
    const token = await idToken({ jti: null });
    expect((await api.request('POST', '/api/v2/auth/idp', { body: { id_token: token } })).status).toBe(200);
    expectErrorShape(await api.request('POST', '/api/v2/auth/idp', { body: { id_token: token } }), 401, 'login_replayed');
    const rows = await api.db.dataSource.query(
      "SELECT count(*)::int AS n FROM used_id_tokens WHERE expires_at > now() + interval '9 minutes'",
    );
    expect(rows[0].n).toBeGreaterThan(0);
  });

  test('remembered tokens are purged once expired', async () => {
    await api.db.dataSource.query(`INSERT INTO used_id_tokens (hash, expires_at) VALUES ('stale', now() - interval '1 second')`);
    expect((await api.request('POST', '/api/v2/auth/idp', { body: { id_token: await idToken() } })).status).toBe(200);
    expect(await api.db.dataSource.query(`SELECT hash FROM used_id_tokens WHERE hash = 'stale'`)).toEqual([]);
  });

  test('without a configured client id the method is unavailable (503)', async () => {
    const res = await unconfigured.request('POST', '/api/v2/auth/idp', { body: { id_token: await idToken() } });
    expectErrorShape(res, 503, 'sign_in_unavailable');
  });
});
