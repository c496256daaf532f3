import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { SignJWT } from 'jose';
import Koa from 'koa';
import { authenticate, authOf, consumeRequest } from '../../src/api/middleware/auth';
import { errorHandler } from '../../src/api/middleware/errors';
import { requestContext } from '../../src/api/middleware/request-context';
import { AccessTokens } from '../../src/core/accounts/access-tokens';
import { AccountConflictError, NotFoundError, PlanTooLowError } from '../../src/core/accounts/errors';
import { InsufficientTokensError } from '../../src/core/billing/errors';
import { ParamError, UnknownModelError } from '../../src/core/catalog/errors';
import { ApiHarness, avoidWindowEdge, expectErrorShape, JWT_SECRET, startApi } from './harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('Authorization header', () => {
  test.each([
    ['missing', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a token', 'Bearer '],
    ['two tokens', 'Bearer abc def'],
  ])('%s: 401 Not authenticated', async (_name, header) => {
    const res = await api.request('GET', '/api/v2/user/me', { headers: header ? { Authorization: header } : {} });
    expectErrorShape(res, 401, 'not_authenticated');
    expect(res.body).toEqual({ error: 'not_authenticated', message: 'Not authenticated' });
  });

  test('wrong, expired, foreign-signed and unsigned tokens: 401 Invalid or expired token', async () => {
    const account = await api.account();
    const session = await api.accessToken(account);
    const sid = JSON.parse(Buffer.from(session.split('.')[1], 'base64url').toString()).sid as string;
    const expired = await new AccessTokens(JWT_SECRET, () => Date.now() - 3600_000).issue({ userId: account.user.id, sessionId: sid });
    const foreign = await new AccessTokens('another-secret-that-is-long-enough-000000').issue({ userId: account.user.id, sessionId: sid });
    const now = Math.floor(Date.now() / 1000);
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const unsigned = `${b64({ alg: 'none' })}.${b64({ sub: String(account.user.id), sid, iss: 'nebula-gen', aud: 'nebula-gen:api', iat: now, exp: now + 600 })}.`;
    const otherAudience = await new SignJWT({ sid })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(account.user.id))
      .setIssuer('nebula-gen')
      .setAudience('something-else')
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(new TextEncoder().encode(JWT_SECRET));
    for (const token of ['garbage', expired.token, foreign.token, unsigned, otherAudience, `nb_${'A'.repeat(45)}`]) {
      const res = await api.request('GET', '/api/v2/user/me', { token });
      expect(res.body).toEqual({ error: 'invalid_token', message: 'Invalid or expired token' });
      expect(res.status).toBe(401);
    }
    expect((await api.request('GET', '/api/v2/user/me', { token: session })).status).toBe(200);
  });
});

describe('API keys', () => {
  test.each(['free', 'basic', 'pro'] as const)('a %s account’s key is refused with 403 naming the required plan', async (plan) => {
    const account = await api.account(plan);
    const res = await api.request('GET', '/api/v2/user/me', { token: await api.apiKey(account) });
    expectErrorShape(res, 403, 'insufficient_plan');
    expect(res.body.message).toMatch(/^Insufficient plan/);
    expect(res.body.message).toMatch(/VIP/);
    expect(res.body.required_plan).toBe('vip');
  });

  test('VIP and Elite keys work; a web token works on every plan', async () => {
    for (const plan of ['vip', 'elite'] as const) {
      const account = await api.account(plan);
      const res = await api.request('GET', '/api/v2/user/me', { token: await api.apiKey(account) });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(account.user.id);
    }
    const starter = await api.account('free');
    expect((await api.request('GET', '/api/v2/user/me', { token: await api.accessToken(starter) })).status).toBe(200);
  });

  test('a deleted key is refused on its very next request', async () => {
    const account = await api.account('vip');
    const created = await api.request('POST', '/api/v2/keys', { token: await api.apiKey(account, 'admin'), body: { name: 'doomed' } });
    const key = created.body.key as string;
    expect((await api.request('GET', '/api/v2/user/balance', { token: key })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v2/keys/${created.body.id}`, { token: key })).status).toBe(204);
    const after = await api.request('GET', '/api/v2/user/balance', { token: key });
    expectErrorShape(after, 401, 'invalid_token');
  });

  test('a key is refused once its account drops below VIP', async () => {
    const account = await api.account('vip');
    const key = await api.apiKey(account);
    expect((await api.request('GET', '/api/v2/user/me', { token: key })).status).toBe(200);
    // Keys are cached per instance: a plain SQL writer's change reaches it by NOTIFY (see key-revocation.test.ts).
    const heard = api.services.accountChanges.expect(account.user.id, 5000);
    await api.db.dataSource.query(`UPDATE users SET plan_slug = 'pro' WHERE id = $1`, [account.user.id]);
    await heard;
    expectErrorShape(await api.request('GET', '/api/v2/user/me', { token: key }), 403, 'insufficient_plan');
  });
});

describe('rate-limit headers', () => {
  const headerNames = [
    'x-ratelimit-limit-hour',
    'x-ratelimit-remaining-hour',
    'x-ratelimit-limit-day',
    'x-ratelimit-remaining-day',
    'x-ratelimit-reset-hour',
    'x-ratelimit-remaining',
  ];
  const headersOf = (res: { headers: Headers }) => Object.fromEntries(headerNames.map((n) => [n, res.headers.get(n)]));
  beforeEach(() => avoidWindowEdge(3600));

  test('every authenticated answer carries them; reads do not count; model runs (shared counters) do', async () => {
    const account = await api.account('basic');
    const token = await api.accessToken(account);
    const first = await api.request('GET', '/api/v2/user/me', { token });
    const nextHour = Math.ceil((Date.now() + 1) / 3_600_000) * 3600;
    expect(headersOf(first)).toEqual({
      'x-ratelimit-limit-hour': '30',
      'x-ratelimit-remaining-hour': '30',
      'x-ratelimit-limit-day': '200',
      'x-ratelimit-remaining-day': '200',
      'x-ratelimit-reset-hour': String(nextHour),
      'x-ratelimit-remaining': '30',
    });
    expect(headersOf(await api.request('GET', '/api/v2/models', { token }))['x-ratelimit-remaining-hour']).toBe('30');

    // A model run elsewhere (the bot, /v1) counts against the same account counters.
    const plan = await api.services.plans.get('basic');
    await api.services.limiter.consume(account.user.id, plan);
    await api.services.limiter.consume(account.user.id, plan);
    const after = await api.request('GET', '/api/v2/user/balance', { token });
    expect(after.headers.get('x-ratelimit-remaining-hour')).toBe('28');
    expect(after.headers.get('x-ratelimit-remaining-day')).toBe('198');
    expect(after.headers.get('x-ratelimit-remaining')).toBe('28');

    // Error answers of an authenticated caller carry them too.
    const missing = await api.request('DELETE', '/api/v2/keys/999999', { token });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-ratelimit-remaining-hour')).toBe('28');
  });

  test('Elite (unlimited) reports limit 0 and a remaining count that never reads as exhausted', async () => {
    const account = await api.account('elite');
    const res = await api.request('GET', '/api/v2/user/me', { token: await api.apiKey(account) });
    expect(res.headers.get('x-ratelimit-limit-hour')).toBe('0');
    expect(res.headers.get('x-ratelimit-limit-day')).toBe('0');
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(1_000_000);
  });

  test('an Elite model run answers with the full headers and counts nothing (no counter is asked for a plan without limits)', async () => {
    const account = await api.account('elite');
    const key = await api.apiKey(account);
    const run = () =>
      api.request('POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
      });
    const first = await run();
    expect(first.status).toBe(200);
    await run();
    const nextHour = Math.ceil((Date.now() + 1) / 3_600_000) * 3600;
    expect(headersOf(first)).toEqual({
      'x-ratelimit-limit-hour': '0',
      'x-ratelimit-remaining-hour': '2147483647',
      'x-ratelimit-limit-day': '0',
      'x-ratelimit-remaining-day': '2147483647',
      'x-ratelimit-reset-hour': String(nextHour),
      'x-ratelimit-remaining': '2147483647',
    });
    expect(first.headers.get('x-ratelimit-limit')).toBe('0');
    // The shared counters of the account were never touched: counted under a limited plan, both runs are absent.
    const counted = await api.services.limiter.peek(account.user.id, { slug: 'vip', rateLimitHourly: 100, rateLimitDaily: 1000 });
    expect([counted.remainingHour, counted.remainingDay]).toEqual([100, 1000]);
  });

  test('unauthenticated answers have none', async () => {
    const res = await api.request('GET', '/api/v2/user/me');
    expect(res.headers.get('x-ratelimit-limit-hour')).toBeNull();
  });
});

describe('exported middleware (what the generation routes use)', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const app = new Koa({ proxy: true, maxIpsCount: 1 });
    app.use(requestContext(api.services));
    app.use(errorHandler());
    const router = new Router({ prefix: '/api/v2' });
    router.use(authenticate(api.services));
    router.post('/run', async (ctx) => {
      await consumeRequest(ctx);
      ctx.body = { ran: true, user: authOf(ctx).userId, via: authOf(ctx).via };
    });
    const errors: Record<string, () => Error> = {
      tokens: () => new InsufficientTokensError(12, 3),
      plan: () => new PlanTooLowError('basic', 'Insufficient plan: gpt-6.1-sol needs the Basic plan or higher (yours: Starter).'),
      model: () => new UnknownModelError('nope'),
      param: () => new ParamError('size', 'size "1x1" is not available'),
      missing: () => new NotFoundError('Generation'),
      conflict: () => new AccountConflictError('email', 'An account with this email already exists'),
      bug: () => new Error('SELECT secret FROM internals failed'),
    };
    router.get('/boom/:kind', async (ctx) => {
      throw errors[ctx.params.kind]();
    });
    app.use(router.routes());
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('consumeRequest counts each call and answers 429 with the exact body and Retry-After when refused', async () => {
    await avoidWindowEdge(3600);
    const account = await api.account('free');
    const token = await api.accessToken(account);
    const post = () => fetch(`${base}/api/v2/run`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    const first = await post();
    expect(await first.json()).toEqual({ ran: true, user: account.user.id, via: 'session' });
    expect(first.headers.get('x-ratelimit-remaining-hour')).toBe('19');
    for (let i = 0; i < 19; i++) expect((await post()).status).toBe(200);
    const refused = await post();
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { retry_after: number };
    expect(body).toEqual({
      error: 'rate_limit_exceeded',
      message: 'Rate limit exceeded',
      retry_after: expect.any(Number),
      plan: 'free',
      limit_hour: 20,
      limit_day: 150,
    });
    expect(Number(refused.headers.get('retry-after'))).toBe(body.retry_after);
    expect(body.retry_after).toBeGreaterThanOrEqual(1);
    expect(body.retry_after).toBeLessThanOrEqual(3600);
    expect(refused.headers.get('x-ratelimit-remaining-hour')).toBe('0');
    // The read-only view agrees: refused requests were not counted beyond the limit.
    const me = await api.request('GET', '/api/v2/user/me', { token });
    expect(me.headers.get('x-ratelimit-remaining-day')).toBe('130');
  });

  test('domain errors map to their statuses once, in the error middleware', async () => {
    const account = await api.account('free');
    const token = await api.accessToken(account);
    const get = async (kind: string) => {
      const res = await fetch(`${base}/api/v2/boom/${kind}`, { headers: { Authorization: `Bearer ${token}` } });
      return { status: res.status, body: await res.json() };
    };
    expect(await get('tokens')).toEqual({
      status: 402,
      body: { error: 'insufficient_tokens', message: 'This request needs 12 tokens; the balance is 3.', required: 12, available: 3 },
    });
    expect(await get('plan')).toEqual({
      status: 403,
      body: { error: 'insufficient_plan', message: expect.stringMatching(/^Insufficient plan: .*Basic/), required_plan: 'basic' },
    });
    expect(await get('model')).toEqual({ status: 404, body: { error: 'model_not_found', message: 'Unknown model: nope', model: 'nope' } });
    expect(await get('param')).toEqual({ status: 400, body: { error: 'validation_error', message: expect.any(String), field: 'size' } });
    expect(await get('missing')).toEqual({ status: 404, body: { error: 'not_found', message: 'Generation not found' } });
    expect((await get('conflict')).status).toBe(409);
    const bug = await get('bug');
    expect(bug).toEqual({ status: 500, body: { error: 'internal_error', message: 'Internal server error' } });
  });
});

describe('request ids and logs', () => {
  test('every answer has X-Request-Id; a plain incoming id is kept, anything else replaced', async () => {
    const generated = await api.request('GET', '/api/v2/nowhere');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await api.request('GET', '/api/v2/nowhere', { headers: { 'X-Request-Id': 'client-req-12345' } });
    expect(kept.headers.get('x-request-id')).toBe('client-req-12345');
    const replaced = await api.request('GET', '/api/v2/nowhere', { headers: { 'X-Request-Id': 'bad id\twith junk' } });
    expect(replaced.headers.get('x-request-id')).not.toContain('junk');
  });

  test('one log line per request with the request id, and never a password, token or key', async () => {
    const account = await api.account('vip');
    const login = await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } });
    const key = await api.apiKey(account);
    const res = await api.request('GET', '/api/v2/user/me?token=leak-check', { token: key });
    await api.request('POST', '/api/v2/auth/login', { body: { email: account.email, password: 'wrong-password-123' } });
    const id = res.headers.get('x-request-id')!;
    const line = api.logs.map((l) => JSON.parse(l)).find((l) => l.reqId === id && l.msg === 'request');
    expect(line).toMatchObject({ method: 'GET', path: '/api/v2/user/me', status: 200, userId: account.user.id, via: 'api_key' });
    const all = api.logs.join('\n');
    for (const secret of [account.password, 'wrong-password-123', login.body.access_token, login.body.refresh_token, key, 'leak-check']) {
      expect(all).not.toContain(secret);
    }
  });
});

describe('surfaces', () => {
  test('unknown routes: 404 in the error shape of the surface', async () => {
    const v2 = await api.request('GET', '/api/v2/does-not-exist');
    expect(v2.body).toEqual({ error: 'not_found', message: 'No route for GET /api/v2/does-not-exist' });
    const v1 = await api.request('GET', '/v1/does-not-exist');
    expect(v1.status).toBe(404);
    expect(v1.body).toEqual({ error: { message: expect.any(String), type: 'not_found_error', param: null, code: 'not_found' } });
  });

  test('a known path with another method: 405 with Allow', async () => {
    const account = await api.account();
    const res = await api.request('PUT', '/api/v2/keys', { token: await api.accessToken(account) });
    expectErrorShape(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toMatch(/GET/);
    expect(res.headers.get('allow')).toMatch(/POST/);
  });
});
