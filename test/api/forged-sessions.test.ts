// Sign-in cannot be forged: development secrets are random (kept under DATA_DIR, mode 0600), an access token's
// session must belong to its subject, and a token past its maximum age is refused.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import { DEV_SECRETS_FILE } from '../../src/dev-secrets';
import { ApiHarness, expectErrorShape, startApi } from './harness';

let api: ApiHarness;

beforeAll(async () => {
  // No JWT_SECRET: the server runs on its generated development secret, as `npm start` does by default.
  api = await startApi({ JWT_SECRET: '', API_KEY_PEPPER: '' });
});
afterAll(() => api.close());

const dataDir = () => api.services.config.dataDir;

async function sign(secret: string, claims: { sub: string; sid: string; iat?: number; exp?: number }): Promise<string> {
  const iat = claims.iat ?? Math.floor(Date.now() / 1000);
  return new SignJWT({ sid: claims.sid })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer('nebula-gen')
    .setAudience('nebula-gen:api')
    .setIssuedAt(iat)
    .setExpirationTime(claims.exp ?? iat + 900)
    .setJti(crypto.randomUUID())
    .sign(new TextEncoder().encode(secret));
}

async function sessionOf(token: string): Promise<string> {
  const [, payload] = token.split('.');
  return JSON.parse(Buffer.from(payload, 'base64url').toString()).sid as string;
}

test('the development secret is random, kept in DATA_DIR with mode 0600, and not the old guessable derivation', () => {
  const file = path.join(dataDir(), DEV_SECRETS_FILE);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  const stored = JSON.parse(fs.readFileSync(file, 'utf8'));
  expect(stored.jwtSecret).toBe(api.services.config.jwtSecret);
  const guessable = crypto
    .createHash('sha256')
    .update(`dev-only:jwt:${path.resolve(dataDir())}`)
    .digest('hex');
  expect(api.services.config.jwtSecret).not.toBe(guessable);
  expect(stored.botWebhookSecret).not.toBe(
    crypto
      .createHash('sha256')
      .update(`dev-only:webhook:${path.resolve(dataDir())}`)
      .digest('hex')
      .slice(0, 32),
  );
});

test('a development JWT forged with the guessable secret is refused', async () => {
  const attacker = await api.account('free');
  const victim = await api.account('vip');
  const sid = await sessionOf(await api.accessToken(attacker));
  const guessable = crypto
    .createHash('sha256')
    .update(`dev-only:jwt:${path.resolve(dataDir())}`)
    .digest('hex');
  const forged = await sign(guessable, { sub: String(victim.user.id), sid });
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: forged }), 401, 'invalid_token');
});

test("one's own session id does not vouch for another user (sid bound to sub)", async () => {
  const attacker = await api.account('free');
  const victim = await api.account('vip');
  const own = await api.accessToken(attacker);
  const sid = await sessionOf(own);
  // Even with the signing key (say, leaked), a token naming the victim with the attacker's session is refused.
  const crossed = await sign(api.services.config.jwtSecret, { sub: String(victim.user.id), sid });
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: crossed }), 401, 'invalid_token');
  expect((await api.request('GET', '/v1/models', { token: crossed })).status).toBe(401);
  const me = await api.request('GET', '/api/v2/user/me', { token: own });
  expect(me.status).toBe(200);
  expect(me.body.id).toBe(attacker.user.id);
});

test('a token past its maximum age is refused even when its exp is far away; a malformed sid too', async () => {
  const account = await api.account('free');
  const sid = await sessionOf(await api.accessToken(account));
  const now = Math.floor(Date.now() / 1000);
  const old = await sign(api.services.config.jwtSecret, { sub: String(account.user.id), sid, iat: now - 3600, exp: now + 86400 * 365 });
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: old }), 401, 'invalid_token');
  const badSid = await sign(api.services.config.jwtSecret, { sub: String(account.user.id), sid: "x' OR 1=1 --" });
  expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: badSid }), 401, 'invalid_token');
});
