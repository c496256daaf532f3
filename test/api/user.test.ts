import { z } from 'zod';
import { BalanceSchema, GenerationSchema, SettingsSchema, StatsSchema, UserSchema } from '../../src/api/openapi/components';
import { changePlan } from '../../src/core/accounts/users';
import { ApiHarness, expectErrorShape, insertGeneration, startApi, TestAccount } from './harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ PUBLIC_URL: 'https://gen.example.com' });
});
afterAll(() => api.close());

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

async function signedIn(plan: 'free' | 'basic' | 'vip' = 'free', extra = {}): Promise<{ account: TestAccount; token: string }> {
  const account = await api.account(plan, extra);
  return { account, token: await api.accessToken(account) };
}

describe('GET/PATCH /user/me', () => {
  test('the User object, field by field', async () => {
    const { account, token } = await signedIn('basic', { bonusTokens: 7, name: 'Basic Bob' });
    const res = await api.request('GET', '/api/v2/user/me', { token });
    expect(res.status).toBe(200);
    expect(z.strictObject(UserSchema.shape).safeParse(res.body).success).toBe(true);
    expect(res.body).toEqual({
      id: account.user.id,
      name: 'Basic Bob',
      email: account.email,
      email_verified: false,
      messenger_username: null,
      avatar_url: null,
      plan: 'basic',
      plan_expires_at: account.user.planExpiresAt!.toISOString(),
      token_balance: 1007,
      token_limit: 1000,
      tokens_used_this_period: 0,
      rate_limit_hourly: 30,
      rate_limit_daily: 200,
      is_admin: false,
      auth_methods: { messenger: false, identity_provider: false, email: true },
    });
  });

  test('name and avatar_url are writable; nothing else is', async () => {
    const { token } = await signedIn();
    const res = await api.request('PATCH', '/api/v2/user/me', {
      token,
      body: { name: '  Renamed  ', avatar_url: 'https://cdn.example.com/a.png' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Renamed', avatar_url: 'https://cdn.example.com/a.png', plan: 'free' });
    expect((await api.request('GET', '/api/v2/user/me', { token })).body.name).toBe('Renamed');

    const cleared = await api.request('PATCH', '/api/v2/user/me', { token, body: { avatar_url: null } });
    expect(cleared.body).toMatchObject({ name: 'Renamed', avatar_url: null });

    for (const [field, value] of [
      ['plan', 'elite'],
      ['email', 'x@example.com'],
      ['token_balance', 1_000_000],
      ['id', 1],
    ] as const) {
      const refused = await api.request('PATCH', '/api/v2/user/me', { token, body: { [field]: value } });
      expectErrorShape(refused, 400, 'validation_error');
      expect(refused.body.field).toBe(field);
    }
    const after = await api.request('GET', '/api/v2/user/me', { token });
    expect(after.body).toMatchObject({ plan: 'free', token_balance: 50 });
  });

  test('avatar_url must be an http(s) URL; name must not be empty', async () => {
    const { token } = await signedIn();
    for (const avatar of ['javascript:alert(1)', 'ftp://example.com/a.png', 'not a url', 'data:image/png;base64,AAAA']) {
      const res = await api.request('PATCH', '/api/v2/user/me', { token, body: { avatar_url: avatar } });
      expectErrorShape(res, 400, 'validation_error');
      expect(res.body.field).toBe('avatar_url');
    }
    const empty = await api.request('PATCH', '/api/v2/user/me', { token, body: { name: '   ' } });
    expect(empty.body.field).toBe('name');
  });
});

test('GET /user/balance: the Balance object', async () => {
  const { account, token } = await signedIn('vip', { planTokens: 5000, bonusTokens: 25 });
  const res = await api.request('GET', '/api/v2/user/balance', { token });
  expect(res.status).toBe(200);
  expect(z.strictObject(BalanceSchema.shape).safeParse(res.body).success).toBe(true);
  expect(res.body).toEqual({
    plan: 'vip',
    token_balance: 5025,
    plan_tokens_remaining: 5000,
    bonus_tokens: 25,
    plan_expires_at: account.user.planExpiresAt!.toISOString(),
    next_refill_at: account.user.nextRefillAt.toISOString(),
  });
  // Follows plan changes.
  await changePlan(api.db.dataSource, api.services.plans, account.user.id, 'elite');
  const moved = await api.request('GET', '/api/v2/user/balance', { token });
  expect(moved.body).toMatchObject({ plan: 'elite', plan_tokens_remaining: 25000, bonus_tokens: 25, token_balance: 25025 });
});

test('GET /user/stats: completed generations by bucket, and the last 30 days', async () => {
  const { account, token } = await signedIn();
  const ds = api.db.dataSource;
  const uid = account.user.id;
  const add = (category: string, modelSlug: string, tokensSpent: number, extra = {}) =>
    insertGeneration(ds, uid, { category, modelSlug, tokensSpent, ...extra });
  await add('text', 'gpt-6-luna', 2);
  await add('image', 'flux-dev', 3);
  await add('image', 'flux-dev', 3, { createdAt: daysAgo(45) });
  await add('video', 'gemini-omni-1.1-flash', 32, { createdAt: daysAgo(40) });
  await add('tts', 'vendor-v2', 4);
  await add('stt', 'vendor-scribe-v2', 2);
  await add('music', 'musicgen', 9);
  await add('tool', 'upscale', 1);
  await add('tool', 'inpaint', 3);
  // Neither failed nor pending work counts.
  await add('image', 'flux-dev', 0, { status: 'failed' });
  await add('video', 'gemini-omni-1.1-flash', 0, { status: 'pending' });
  // Another account's work is not ours.
  const other = await api.account();
  await insertGeneration(ds, other.user.id, { category: 'image', tokensSpent: 100 });

  const res = await api.request('GET', '/api/v2/user/stats', { token });
  expect(res.status).toBe(200);
  expect(StatsSchema.safeParse(res.body).success).toBe(true);
  expect(res.body).toEqual({
    total_generations: 9,
    tokens_spent_total: 2 + 3 + 3 + 32 + 4 + 2 + 9 + 1 + 3,
    breakdown: {
      text: { count: 1, tokens: 2 },
      image: { count: 2, tokens: 6 },
      video: { count: 1, tokens: 32 },
      audio: { count: 3, tokens: 15 },
      tools: { count: 2, tokens: 4 },
    },
    recent_30d: { generations: 7, tokens_spent: 2 + 3 + 4 + 2 + 9 + 1 + 3 },
  });

  const empty = await signedIn();
  const none = await api.request('GET', '/api/v2/user/stats', { token: empty.token });
  expect(none.body).toEqual({
    total_generations: 0,
    tokens_spent_total: 0,
    breakdown: {
      text: { count: 0, tokens: 0 },
      image: { count: 0, tokens: 0 },
      video: { count: 0, tokens: 0 },
      audio: { count: 0, tokens: 0 },
      tools: { count: 0, tokens: 0 },
    },
    recent_30d: { generations: 0, tokens_spent: 0 },
  });
});

describe('GET/PATCH /user/settings', () => {
  test('defaults, partial updates, and the read-only default_image_size', async () => {
    const { token } = await signedIn();
    const res = await api.request('GET', '/api/v2/user/settings', { token });
    expect(res.status).toBe(200);
    expect(z.strictObject(SettingsSchema.shape).safeParse(res.body).success).toBe(true);
    expect(res.body).toEqual({ language: 'en', image_format: 'webp', notifications_enabled: true, default_image_size: '1024x1024' });

    const patched = await api.request('PATCH', '/api/v2/user/settings', { token, body: { language: 'ru', notifications_enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ language: 'ru', image_format: 'webp', notifications_enabled: false, default_image_size: '1024x1024' });
    const format = await api.request('PATCH', '/api/v2/user/settings', { token, body: { image_format: 'png' } });
    expect(format.body).toEqual({ language: 'ru', image_format: 'png', notifications_enabled: false, default_image_size: '1024x1024' });
    expect((await api.request('GET', '/api/v2/user/settings', { token })).body.image_format).toBe('png');
  });

  test('invalid values answer 400 naming the field', async () => {
    const { token } = await signedIn();
    for (const [field, value] of [
      ['language', 'de'],
      ['image_format', 'gif'],
      ['notifications_enabled', 'yes'],
      ['default_image_size', '512x512'],
    ] as const) {
      const res = await api.request('PATCH', '/api/v2/user/settings', { token, body: { [field]: value } });
      expectErrorShape(res, 400, 'validation_error');
      expect(res.body.field).toBe(field);
    }
  });

  test('one user never sees or changes another user’s settings', async () => {
    const a = await signedIn();
    const b = await signedIn();
    await api.request('PATCH', '/api/v2/user/settings', { token: a.token, body: { language: 'ru' } });
    expect((await api.request('GET', '/api/v2/user/settings', { token: b.token })).body.language).toBe('en');
  });
});

describe('GET /user/history', () => {
  test('the caller’s own generations, newest first, as Generation objects', async () => {
    const { account, token } = await signedIn();
    const image = await insertGeneration(api.db.dataSource, account.user.id, { seed: 42, resultMetadata: { width: 1024, height: 1024 } });
    const music = await insertGeneration(api.db.dataSource, account.user.id, {
      category: 'music',
      modelSlug: 'musicgen',
      tokensSpent: 9,
      durationSeconds: 30,
    });
    const pending = await insertGeneration(api.db.dataSource, account.user.id, {
      category: 'video',
      modelSlug: 'gemini-omni-1.1-flash',
      status: 'pending',
      etaSeconds: 60,
    });
    const ocr = await insertGeneration(api.db.dataSource, account.user.id, {
      category: 'tool',
      modelSlug: 'text-ocr',
      tokensSpent: 1,
      resultKey: null,
      resultText: 'HELLO',
    });
    const other = await api.account();
    await insertGeneration(api.db.dataSource, other.user.id);

    const res = await api.request('GET', '/api/v2/user/history', { token });
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.items.map((g: { id: number }) => g.id)).toEqual([ocr.id, pending.id, music.id, image.id]);
    for (const item of res.body.items) expect(GenerationSchema.safeParse(item).success).toBe(true);
    const [o, p, m, i] = res.body.items;
    expect(i).toEqual({
      id: image.id,
      status: 'completed',
      model_slug: 'flux-dev',
      category: 'image',
      result_url: `https://gen.example.com/files/${image.resultKey}`,
      result_text: null,
      error: null,
      tokens_spent: 3,
      processing_ms: 1200,
      seed: 42,
      result_metadata: { width: 1024, height: 1024 },
      created_at: image.createdAt.toISOString(),
      completed_at: image.completedAt!.toISOString(),
      door: 'web',
      api_key_id: null,
      prompt: 'a fox',
      usage: null,
    });
    expect(m).toMatchObject({ type: 'audio', duration_seconds: 30, model: 'musicgen', output_url: m.result_url, tokens_used: 9 });
    expect(p).toMatchObject({ status: 'pending', eta_seconds: 60, result_url: null });
    expect(o).toMatchObject({ result_text: 'HELLO', result_url: null });
  });

  test('filters: category, model, status, from/to', async () => {
    const { account, token } = await signedIn();
    const ds = api.db.dataSource;
    const uid = account.user.id;
    const old = await insertGeneration(ds, uid, { createdAt: daysAgo(10) });
    const failed = await insertGeneration(ds, uid, { status: 'failed', error: 'The model flux-dev is overloaded', createdAt: daysAgo(5) });
    const video = await insertGeneration(ds, uid, { category: 'video', modelSlug: 'gemini-omni-1.1-flash', createdAt: daysAgo(1) });
    const ids = async (query: string) =>
      (await api.request('GET', `/api/v2/user/history?${query}`, { token })).body.items.map((g: { id: number }) => g.id);

    expect(await ids('category=video')).toEqual([video.id]);
    expect(await ids('model=flux-dev')).toEqual([failed.id, old.id]);
    expect(await ids('status=failed')).toEqual([failed.id]);
    expect(await ids('status=completed&category=image')).toEqual([old.id]);
    expect(await ids(`from=${encodeURIComponent(daysAgo(7).toISOString())}`)).toEqual([video.id, failed.id]);
    expect(await ids(`to=${encodeURIComponent(daysAgo(3).toISOString())}`)).toEqual([failed.id, old.id]);
    expect(await ids(`from=${encodeURIComponent(daysAgo(7).toISOString())}&to=${encodeURIComponent(daysAgo(3).toISOString())}`)).toEqual([
      failed.id,
    ]);
    expect(await ids('model=gpt-6.1-sol')).toEqual([]);
  });

  test('the request log: each entry names its door and key; door and key filter it', async () => {
    const { account, token } = await signedIn('vip');
    const ds = api.db.dataSource;
    const uid = account.user.id;
    const key = await api.services.apiKeys.create(uid, 'ci');
    const web = await insertGeneration(ds, uid, { source: 'api' });
    const webV1 = await insertGeneration(ds, uid, { source: 'v1', category: 'text', modelSlug: 'gpt-6-luna' });
    const viaKey = await insertGeneration(ds, uid, { source: 'v1', apiKeyId: key.id, category: 'text', modelSlug: 'gpt-6-luna' });
    const viaKeyV2 = await insertGeneration(ds, uid, { source: 'api', apiKeyId: key.id });
    const bot = await insertGeneration(ds, uid, { source: 'bot' });
    const scheduled = await insertGeneration(ds, uid, { source: 'schedule' });
    const page = async (query: string) => (await api.request('GET', `/api/v2/user/history?${query}`, { token })).body;

    const all = (await page('')).items as { id: number; door: string; api_key_id: number | null }[];
    expect(all.map((g) => [g.id, g.door, g.api_key_id])).toEqual([
      [scheduled.id, 'schedule', null],
      [bot.id, 'bot', null],
      [viaKeyV2.id, 'api', key.id],
      [viaKey.id, 'api', key.id],
      [webV1.id, 'web', null],
      [web.id, 'web', null],
    ]);
    const ids = async (query: string) => ((await page(query)).items as { id: number }[]).map((g) => g.id);
    expect(await ids('door=web')).toEqual([webV1.id, web.id]);
    expect(await ids('door=api')).toEqual([viaKeyV2.id, viaKey.id]);
    expect(await ids('door=bot')).toEqual([bot.id]);
    expect(await ids('door=schedule')).toEqual([scheduled.id]);
    expect(await ids(`key=${key.id}`)).toEqual([viaKeyV2.id, viaKey.id]);
    expect(await ids(`key=${key.id}&category=text`)).toEqual([viaKey.id]);
    expect(await ids(`key=${key.id}&door=web`)).toEqual([]);
    for (const query of ['door=email', 'key=0', 'key=abc']) {
      const res = await api.request('GET', `/api/v2/user/history?${query}`, { token });
      expectErrorShape(res, 400, 'validation_error');
      expect(res.body.field).toBe(query.split('=')[0]);
    }
  });

  test('cursor pagination walks every row once; limit is capped at 100', async () => {
    const { account, token } = await signedIn();
    const created = [];
    for (let i = 0; i < 105; i++) created.push((await insertGeneration(api.db.dataSource, account.user.id)).id);
    const expected = [...created].reverse();

    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `limit=40${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await api.request('GET', `/api/v2/user/history?${query}`, { token });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((g: { id: number }) => g.id));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);

    const capped = await api.request('GET', '/api/v2/user/history?limit=1000', { token });
    expect(capped.body.items).toHaveLength(100);
    expect(capped.body.next_cursor).toEqual(expect.any(String));
    const byDefault = await api.request('GET', '/api/v2/user/history', { token });
    expect(byDefault.body.items).toHaveLength(20);
  });

  test('invalid filters answer 400 naming the parameter', async () => {
    const { token } = await signedIn();
    for (const [query, field] of [
      ['category=poetry', 'category'],
      ['status=done', 'status'],
      ['from=yesterday', 'from'],
      ['to=2026-13-01T00:00:00Z', 'to'],
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['cursor=bm9wZQ', 'cursor'],
      ['category=text&category=image', 'category'],
    ]) {
      const res = await api.request('GET', `/api/v2/user/history?${query}`, { token });
      expectErrorShape(res, 400, 'validation_error');
      expect(res.body.field).toBe(field);
    }
  });

  test('another user’s cursor cannot reveal their rows', async () => {
    const a = await signedIn();
    const b = await signedIn();
    for (let i = 0; i < 3; i++) await insertGeneration(api.db.dataSource, a.account.user.id);
    const page = await api.request('GET', '/api/v2/user/history?limit=1', { token: a.token });
    const theirs = await api.request('GET', `/api/v2/user/history?cursor=${page.body.next_cursor}`, { token: b.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body.items).toEqual([]);
  });
});
