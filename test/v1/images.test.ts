import { createOpenAI } from '@ai-sdk/openai';
import { generateImage } from 'ai';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { startWorkers } from '../../src/jobs/workers';
import { syntheticImage } from '../../src/sandbox/synthetic';
import { ApiHarness, startApi, TestAccount } from '../api/harness';
import { pngWithHole } from '../support/images';

// OpenAI's Images API (/v1/images/generations, /v1/images/edits) through the official `openai` SDK and the AI SDK,
// for models of several vendors: the same generations, prices, ledger and history as /api/v2/generate.

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
});
afterAll(() => api.close());

async function client(plan: 'vip' | 'free' = 'vip', tokens = 1000): Promise<{ openai: OpenAI; key: string; account: TestAccount }> {
  const account = await api.account(plan, { planTokens: tokens, bonusTokens: 0 });
  const key = plan === 'vip' ? await api.apiKey(account) : await api.accessToken(account);
  return { openai: new OpenAI({ apiKey: key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 }), key, account };
}

/** Tokens the account's generations took in the ledger (holds less what came back). */
async function chargedInLedger(userId: number): Promise<number> {
  const rows = await api.db.dataSource.query<{ charged: string | null }[]>(
    `SELECT -SUM(plan_delta + bonus_delta) AS charged FROM ledger_entries WHERE user_id = $1 AND reference LIKE 'gen:%'`,
    [userId],
  );
  return Number(rows[0]?.charged ?? 0);
}

async function quote(key: string, slug: string, body: Record<string, unknown>): Promise<number> {
  const res = await api.request('POST', `/api/v2/models/${slug}/calculate-price`, { token: key, body });
  expect(res.status).toBe(200);
  return res.body.tokens as number;
}

async function history(key: string): Promise<{ model_slug: string; status: string; tokens_spent: number }[]> {
  const res = await api.request('GET', '/api/v2/user/history', { token: key });
  expect(res.status).toBe(200);
  return res.body.items ?? res.body.generations ?? res.body;
}

async function dimensions(b64: string): Promise<{ width?: number; height?: number; format?: string }> {
  return sharp(Buffer.from(b64, 'base64')).metadata();
}

describe.each([
  ['openai', 'gpt-image-2.6-flare', '1536x1024', { size: '1536x1024', quality: 'hd' }],
  ['bfl', 'flux-dev', '1344x768', { size: '1344x768' }],
  ['google', 'gemini-3.1-flash-image', '16:9', { size: '16:9' }],
] as const)('images.generate on a %s model', (_vendor, model, size, priced) => {
  test('b64_json images of the asked size, charged what calculate-price quotes, in the history', async () => {
    const { openai, key, account } = await client();
    const price = await quote(key, model, { prompt: 'a lighthouse at dusk', ...priced });
    const res = await openai.images
      .generate({ model, prompt: 'a lighthouse at dusk', size: size as '1536x1024', quality: 'hd', n: 2 })
      .withResponse();
    expect(res.data.data).toHaveLength(2);
    const meta = await dimensions(res.data.data![0].b64_json!);
    expect(meta.format).toBe('png');
    expect(res.data.output_format).toBe('png');
    if (size.includes('x')) expect(`${meta.width}x${meta.height}`).toBe(size);
    else expect(Math.round((meta.width! / meta.height!) * 9)).toBe(16);
    // Models without a high quality ignore it and say so.
    if (model !== 'gpt-image-2.6-flare') expect(res.response.headers.get('x-ignored-parameters')).toMatch(/quality/);
    expect(await chargedInLedger(account.user.id)).toBe(2 * price);
    expect(Number(res.response.headers.get('x-token-balance'))).toBe(1000 - 2 * price);
    const entries = await history(key);
    expect(entries.filter((g) => g.model_slug === model && g.status === 'completed')).toHaveLength(2);
  });
});

test('response_format url answers result files of this service; an access token works as a key does', async () => {
  const { openai } = await client('free');
  const res = await openai.images.generate({ model: 'flux-dev', prompt: 'a red kite', response_format: 'url', output_format: 'webp' });
  const url = res.data![0].url!;
  expect(url).toMatch(/\/files\//);
  const file = await fetch(url);
  expect(file.headers.get('content-type')).toBe('image/webp');
});

test('an asynchronous model is waited for; the answer carries its image', async () => {
  const { openai } = await client();
  const res = await openai.images.generate({ model: 'flux-pro-1.1-ultra', prompt: 'mountains', size: '1024x1024' });
  expect(res.data![0].b64_json!.length).toBeGreaterThan(100);
});

test('AI SDK generateImage on an OpenAI and a FLUX model', async () => {
  const { key, account } = await client();
  const provider = createOpenAI({ baseURL: `${api.baseUrl}/v1`, apiKey: key });
  for (const model of ['gpt-image-2.6-flare', 'flux-dev']) {
    const { images, warnings } = await generateImage({ model: provider.image(model), prompt: 'a quiet harbour', size: '1024x1024' });
    expect(images).toHaveLength(1);
    expect(images[0].mediaType).toBe('image/png');
    expect(warnings).toEqual([]);
  }
  const gpt = await quote(key, 'gpt-image-2.6-flare', { prompt: 'x' });
  const flux = await quote(key, 'flux-dev', { prompt: 'x' });
  expect(await chargedInLedger(account.user.id)).toBe(gpt + flux);
});

describe('images.edit', () => {
  test.each(['gemini-3.1-flash-image', 'flux-kontext-pro'])('%s edits by instruction; a mask is ignored and named', async (model) => {
    const { openai, key, account } = await client();
    const image = await toFile(await syntheticImage(256, 256, 'a cat'), 'cat.png', { type: 'image/png' });
    const mask = await toFile(await pngWithHole(), 'mask.png', { type: 'image/png' });
    const res = await openai.images.edit({ model, image, mask, prompt: 'give the cat a hat' }).withResponse();
    expect(res.data.data![0].b64_json!.length).toBeGreaterThan(100);
    expect(res.response.headers.get('x-ignored-parameters')).toMatch(/mask/);
    expect(await chargedInLedger(account.user.id)).toBe(await quote(key, model, { prompt: 'x' }));
  });

  test('inpainting: the area the mask leaves transparent is repainted, at the image size; image[] is taken', async () => {
    const { openai, key, account } = await client();
    const image = await toFile(await syntheticImage(256, 256, 'a room'), 'room.png', { type: 'image/png' });
    const mask = await toFile(await pngWithHole(), 'mask.png', { type: 'image/png' });
    const res = await openai.images.edit({ model: 'inpaint', image: [image], mask, prompt: 'a window', size: '1024x1024' }).withResponse();
    const meta = await dimensions(res.data.data![0].b64_json!);
    expect([meta.width, meta.height]).toEqual([256, 256]);
    expect(res.response.headers.get('x-ignored-parameters')).toMatch(/size/);
    expect(await chargedInLedger(account.user.id)).toBe(
      await quote(key, 'inpaint', { prompt: 'x', params: { image_url: 'https://example.com/a.png' } }),
    );
  });

  test.each(['flux-kontext-pro', 'gemini-3.1-flash-image'])('AI SDK generateImage with an input image: %s edits it', async (model) => {
    const { key } = await client();
    const provider = createOpenAI({ baseURL: `${api.baseUrl}/v1`, apiKey: key });
    const { images } = await generateImage({
      model: provider.image(model),
      prompt: { text: 'make it snow', images: [await syntheticImage(128, 128, 'street')] },
    });
    expect(images).toHaveLength(1);
  });
});

describe('refusals in OpenAI’s error body', () => {
  const expectParam = async (promise: Promise<unknown>, status: number, param: string) => {
    const err = (await promise.then(
      () => undefined,
      (e: unknown) => e,
    )) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect([err.status, (err.error as { param?: string }).param]).toEqual([status, param]);
    return err;
  };

  test('an empty prompt, a size no image model offers, an unknown parameter, a model of another category', async () => {
    const { openai } = await client();
    await expectParam(openai.images.generate({ model: 'flux-dev', prompt: '' }), 400, 'prompt');
    const size = await expectParam(openai.images.generate({ model: 'flux-dev', prompt: 'x', size: '256x256' }), 400, 'size');
    expect(size.message).toMatch(/256x256/);
    await expectParam(openai.images.generate({ model: 'flux-dev', prompt: 'x', foo: 1 } as never), 400, 'foo');
    await expectParam(openai.images.generate({ model: 'whisper-1', prompt: 'x' }), 400, 'model');
    await expectParam(openai.images.generate({ model: 'flux-dev', prompt: 'x', stream: true }), 400, 'stream');
  });

  test('a non-image upload, a mask of another size, a model that does not edit', async () => {
    const { openai } = await client();
    const image = () => syntheticImage(256, 256, 'x').then((b) => toFile(b, 'x.png', { type: 'image/png' }));
    const text = await toFile(Buffer.from('not an image at all'), 'notes.png', { type: 'image/png' });
    await expectParam(openai.images.edit({ model: 'inpaint', image: text, prompt: 'x' }), 400, 'image');
    const small = await toFile(
      await sharp({ create: { width: 128, height: 128, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
        .png()
        .toBuffer(),
      'mask.png',
    );
    await expectParam(openai.images.edit({ model: 'inpaint', image: await image(), mask: small, prompt: 'x' }), 400, 'mask');
    await expectParam(openai.images.edit({ model: 'flux-dev', image: await image(), prompt: 'x' }), 400, 'model');
  });

  test('over the balance: 402 and nothing charged or sent for any of n', async () => {
    const { openai, account } = await client('vip', 5);
    const err = (await openai.images.generate({ model: 'flux-dev', prompt: 'x', n: 3 }).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect(err.status).toBe(402);
    expect(await chargedInLedger(account.user.id)).toBe(0);
    const rows = await api.db.dataSource.query('SELECT id FROM generations WHERE user_id = $1', [account.user.id]);
    expect(rows).toEqual([]);
  });
});

test('the same Idempotency-Key replays the images without charging again', async () => {
  const { key, account } = await client();
  const body = { model: 'flux-dev', prompt: 'a fox', response_format: 'url' };
  const headers = { 'Idempotency-Key': `img-${account.user.id}` };
  const first = await api.request('POST', '/v1/images/generations', { token: key, body, headers });
  const again = await api.request('POST', '/v1/images/generations', { token: key, body, headers });
  expect(first.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body.data).toEqual(first.body.data);
  expect(await chargedInLedger(account.user.id)).toBe(await quote(key, 'flux-dev', { prompt: 'x' }));
});

test('a key’s model list and budget hold on the media routes: 403 model_not_allowed, 402 key_budget_exceeded', async () => {
  const account = await api.account('vip', { planTokens: 1000, bonusTokens: 0 });
  const listed = (await api.services.createApiKey(account.user.id, 'flux only', { models: ['flux-dev'] })).key;
  const openai = new OpenAI({ apiKey: listed, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
  expect((await openai.images.generate({ model: 'flux-dev', prompt: 'a fox' })).data).toHaveLength(1);
  const refused = (await openai.images
    .generate({ model: 'gpt-image-2.6-flare', prompt: 'a fox' })
    .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
  expect([refused.status, refused.code]).toEqual([403, 'model_not_allowed']);
  const budget = (await api.services.createApiKey(account.user.id, 'tiny', { token_budget: 2, budget_period: 'total' })).key;
  const poor = new OpenAI({ apiKey: budget, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
  const over = (await poor.images.generate({ model: 'flux-dev', prompt: 'a fox' }).catch((e: unknown) => e)) as InstanceType<
    typeof OpenAI.APIError
  >;
  expect([over.status, over.code]).toEqual([402, 'key_budget_exceeded']);
  expect(await chargedInLedger(account.user.id)).toBe(await quote(listed, 'flux-dev', { prompt: 'x' }));
});

test('GET /v1/models lists every category, each entry naming its category', async () => {
  const { openai } = await client();
  const models = (await openai.models.list()).data as (OpenAI.Models.Model & { category: string })[];
  expect(new Set(models.map((m) => m.category))).toEqual(new Set(['text', 'image', 'video', 'tts', 'stt', 'music', 'tool']));
  expect(models.find((m) => m.id === 'gemini-omni-1.1-flash')).toMatchObject({ object: 'model', category: 'video', owned_by: 'google' });
});

test('n images are one request against the hourly and daily limits', async () => {
  const { key } = await client();
  const body = { model: 'flux-dev', prompt: 'a fox', response_format: 'url' };
  const first = await api.request('POST', '/v1/images/generations', { token: key, body: { ...body, n: 3 } });
  const second = await api.request('POST', '/v1/images/generations', { token: key, body });
  expect(first.body.data).toHaveLength(3);
  const left = (res: typeof first) => Number(res.headers.get('x-ratelimit-remaining-hour'));
  expect(left(first) - left(second)).toBe(1);
});
