// Email ownership: register mails a verification link, the account is usable at once, and an unverified email is
// never linked to an identity-provider sign-in: a verified IdP email takes such an account over and revokes the
// credentials its registrant set up (the account pre-hijack).
import crypto from 'node:crypto';
import { startOidcProvider, type OidcProvider } from '../support/oidc-provider';
import { ApiHarness, expectErrorShape, startApi } from './harness';

let idp: OidcProvider;
let api: ApiHarness;

beforeAll(async () => {
  idp = await startOidcProvider();
  api = await startApi({ ...idp.env, PUBLIC_URL: 'https://gen.example.com' });
});
afterAll(async () => {
  await api.close();
  await idp.close();
});

const idToken = (email: string, verified = true) => idp.idToken({ claims: { email, email_verified: verified, name: 'Victim' } });

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
