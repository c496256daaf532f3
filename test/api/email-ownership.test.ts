// Email ownership: register mails a verification link, the account is usable at once, and an unverified email is
// never linked to an identity-provider sign-in: a verified IdP email takes such an account over and revokes the
// credentials its registrant set up (the account pre-hijack).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { ApiHarness, expectErrorShape, startApi } from './harness';

const ISSUER = 'https://idp.test';
const CLIENT_ID = 'our-client-id.apps.test';
let jwks: http.Server;
let signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let api: ApiHarness;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  const publicJwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = http.createServer((_req, res) => res.setHeader('Content-Type', 'application/json').end(JSON.stringify({ keys: [publicJwk] })));
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/certs`;
  api = await startApi({ OIDC_ISSUER: ISSUER, OIDC_CLIENT_ID: CLIENT_ID, OIDC_JWKS_URL: jwksUrl, PUBLIC_URL: 'https://gen.example.com' });
});
afterAll(async () => {
  await api.close();
  await new Promise<void>((resolve) => jwks.close(() => resolve()));
});

async function idToken(email: string, verified = true): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email, email_verified: verified, name: 'Victim' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(CLIENT_ID)
    .setSubject(`sub-${crypto.randomUUID()}`)
    .setIssuedAt(now - 10)
    .setExpirationTime(now + 600)
    .sign(signingKey);
}

const verificationToken = (to: string) => {
  const mail = api.mails.filter((m) => m.to === to).at(-1);
  return mail && /verify-email\?token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
};

test('register mails a verification link; the account works at once; the link verifies the email once', async () => {
  const email = `fresh-${crypto.randomBytes(3).toString('hex')}@example.com`;
  const reg = await api.request('POST', '/api/v2/auth/register', { body: { email, password: 'long enough' } });
  expect(reg.status).toBe(201);
  const mail = api.mails.find((m) => m.to === email)!;
  expect(mail.subject).toMatch(/Confirm/);
  expect(mail.text).toContain('https://gen.example.com/verify-email?token=');
  const me = await api.request('GET', '/api/v2/user/me', { token: reg.body.access_token });
  expect(me.body).toMatchObject({ email, email_verified: false });

  const token = verificationToken(email)!;
  const ok = await api.request('POST', '/api/v2/auth/verify-email', { body: { token } });
  expect(ok.status).toBe(200);
  expect((await api.request('GET', '/api/v2/user/me', { token: reg.body.access_token })).body.email_verified).toBe(true);
  expectErrorShape(await api.request('POST', '/api/v2/auth/verify-email', { body: { token } }), 400, 'invalid_verification_token');
  expectErrorShape(
    await api.request('POST', '/api/v2/auth/verify-email', { body: { token: 'x'.repeat(43) } }),
    400,
    'invalid_verification_token',
  );
});

test('pre-hijack closed: the IdP sign-in takes an unverified account over and revokes password, sessions and keys', async () => {
  const email = `victim-${crypto.randomBytes(3).toString('hex')}@example.com`;
  // The attacker registers the victim's email and sets up lasting access.
  const reg = await api.request('POST', '/api/v2/auth/register', { body: { email, password: 'attacker password' } });
  expect(reg.status).toBe(201);
  await api.db.dataSource.query(`UPDATE users SET plan_slug = 'vip' WHERE id = $1`, [reg.body.user.id]);
  const key = (await api.services.apiKeys.create(reg.body.user.id, 'backdoor')).key;
  expect((await api.request('GET', '/api/v2/user/me', { token: key })).status).toBe(200);

  // The victim signs in with the identity provider.
  const idp = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: await idToken(email) } });
  expect(idp.status).toBe(200);
  expect(idp.body.user.id).toBe(reg.body.user.id);
  const me = await api.request('GET', '/api/v2/user/me', { token: idp.body.access_token });
  expect(me.body).toMatchObject({ email_verified: true, auth_methods: { identity_provider: true, email: false } });

  expectErrorShape(
    await api.request('POST', '/api/v2/auth/login', { body: { email, password: 'attacker password' } }),
    401,
    'invalid_credentials',
  );
  expectErrorShape(await api.request('POST', '/api/v2/auth/refresh', { body: { refresh_token: reg.body.refresh_token } }), 401);
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: reg.body.access_token }), 401, 'invalid_token');
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: key }), 401, 'invalid_token');
  // The attacker's old verification link no longer matters either way; the victim keeps the account.
  expect((await api.request('GET', '/api/v2/user/me', { token: idp.body.access_token })).status).toBe(200);
});

test('a verified account is linked without revoking anything; an unverified IdP email links nothing', async () => {
  const email = `owner-${crypto.randomBytes(3).toString('hex')}@example.com`;
  const reg = await api.request('POST', '/api/v2/auth/register', { body: { email, password: 'owner password' } });
  await api.request('POST', '/api/v2/auth/verify-email', { body: { token: verificationToken(email) } });

  const unverified = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: await idToken(email, false) } });
  expect(unverified.status).toBe(200);
  expect(unverified.body.user.id).not.toBe(reg.body.user.id);

  const linked = await api.request('POST', '/api/v2/auth/idp', { body: { id_token: await idToken(email) } });
  expect(linked.body.user.id).toBe(reg.body.user.id);
  expect((await api.request('POST', '/api/v2/auth/login', { body: { email, password: 'owner password' } })).status).toBe(200);
  expect((await api.request('GET', '/api/v2/user/me', { token: reg.body.access_token })).status).toBe(200);
});
