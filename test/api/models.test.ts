import { z } from 'zod';
import { ModelSchema } from '../../src/api/openapi/components';
import {
  estimateChatReservation,
  estimatePromptTokens,
  listModels,
  priceRange,
  quoteGeneration,
  requireModel,
  resolveMaxTokens,
  toPublicModel,
} from '../../src/core/catalog';
import { ApiHarness, expectErrorShape, insertGeneration, startApi } from './harness';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';

let api: ApiHarness;
let token: string;

beforeAll(async () => {
  api = await startApi();
  token = await api.accessToken(await api.account('basic'));
});
afterAll(() => api.close());

describe('GET /models', () => {
  test('the whole catalog: every Model object with prices', async () => {
    const res = await api.request('GET', '/api/v2/models', { token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['models', 'total']);
    expect(res.body.total).toBe(CATALOG_SHAPE.models);
    expect(res.body.models).toHaveLength(CATALOG_SHAPE.models);
    for (const model of res.body.models) {
      expect(z.strictObject(ModelSchema.shape).safeParse(model).success).toBe(true);
      expect(model.token_cost).toBeGreaterThanOrEqual(1);
      expect(model.min_token_cost).toBeLessThanOrEqual(model.max_token_cost);
      expect(model).not.toHaveProperty('is_free');
    }
    const flux = res.body.models.find((m: { slug: string }) => m.slug === 'flux-dev');
    expect(flux).toEqual(JSON.parse(JSON.stringify(toPublicModel(requireModel('flux-dev')))));
    expect(flux).toMatchObject({ category: 'image', min_plan: 'free', min_plan_slug: null, config: { sizes: expect.any(Array) } });
  });

  test('filters by category and by plan', async () => {
    const count = async (query: string) => (await api.request('GET', `/api/v2/models?${query}`, { token })).body.total;
    expect(await count('category=image')).toBe(11);
    expect(await count('category=tool')).toBe(7);
    expect(await count('min_plan=free')).toBe(CATALOG_SHAPE.starter);
    expect(await count('min_plan=basic')).toBe(CATALOG_SHAPE.models);
    expect(await count('category=text&min_plan=free')).toBe(7);
    const stt = await api.request('GET', '/api/v2/models?category=stt', { token });
    expect(stt.body.models.map((m: { slug: string }) => m.slug).sort()).toEqual(
      listModels({ category: 'stt' })
        .map((m) => m.slug)
        .sort(),
    );
  });

  test('invalid filters answer 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['category=poems', 'category'],
      ['min_plan=gold', 'min_plan'],
    ]) {
      const res = await api.request('GET', `/api/v2/models?${query}`, { token });
      expectErrorShape(res, 400, 'validation_error');
      expect(res.body.field).toBe(field);
    }
  });

  test('the catalog needs a credential', async () => {
    expectErrorShape(await api.request('GET', '/api/v2/models'), 401, 'not_authenticated');
  });
});

describe('GET /models/{slug}/avg-time', () => {
  test('with no samples: the catalog estimate and samples 0', async () => {
    const res = await api.request('GET', '/api/v2/models/gemini-omni-1.2-flash/avg-time', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      model_slug: 'gemini-omni-1.2-flash',
      avg_time_ms: requireModel('gemini-omni-1.2-flash').etaSeconds * 1000,
      samples: 0,
    });
  });

  test('the average of recent completed generations of that model only', async () => {
    const owner = await api.account();
    const ds = api.db.dataSource;
    for (const ms of [1000, 2000, 3500]) await insertGeneration(ds, owner.user.id, { modelSlug: 'sdxl', processingMs: ms });
    await insertGeneration(ds, owner.user.id, {
      modelSlug: 'sdxl',
      processingMs: 99_000,
      completedAt: new Date(Date.now() - 30 * 86_400_000),
    });
    await insertGeneration(ds, owner.user.id, { modelSlug: 'sdxl', status: 'failed', processingMs: 50_000 });
    await insertGeneration(ds, owner.user.id, { modelSlug: 'flux-dev', processingMs: 40_000 });
    const res = await api.request('GET', '/api/v2/models/sdxl/avg-time', { token });
    expect(res.body).toEqual({ model_slug: 'sdxl', avg_time_ms: 2167, samples: 3 });
  });

  test('an unknown model answers 404 model_not_found', async () => {
    expectErrorShape(await api.request('GET', '/api/v2/models/no-such-model/avg-time', { token }), 404, 'model_not_found');
  });
});

describe('POST /models/{slug}/calculate-price', () => {
  const price = (slug: string, body: unknown) => api.request('POST', `/api/v2/models/${slug}/calculate-price`, { token, body });

  test('image models: the exact quote generate would reserve, with the model’s range', async () => {
    const flux = requireModel('flux-dev');
    const square = await price('flux-dev', { prompt: 'a fox', size: '1024x1024' });
    expect(square.status).toBe(200);
    expect(square.body).toEqual({
      model_slug: 'flux-dev',
      tokens: quoteGeneration(flux, { size: '1024x1024' }),
      min_token_cost: priceRange(flux).min,
      max_token_cost: priceRange(flux).max,
    });
    const dalle = requireModel('gpt-image-2.6-flare');
    const hdWide = await price('gpt-image-2.6-flare', { prompt: 'a fox', size: '1536x1024', quality: 'hd' });
    expect(hdWide.body.tokens).toBe(quoteGeneration(dalle, { size: '1536x1024', quality: 'hd' }));
    expect(hdWide.body.tokens).toBeGreaterThan((await price('gpt-image-2.6-flare', { prompt: 'a fox' })).body.tokens);
  });

  test('video duration, tools, music and speech-to-text', async () => {
    expect((await price('gemini-omni-1.1-flash', { prompt: 'waves', duration: 4 })).body.tokens).toBe(
      quoteGeneration(requireModel('gemini-omni-1.1-flash'), { durationSeconds: 4 }),
    );
    expect((await price('upscale', { params: { image_url: 'https://example.com/a.png', scale: 4 } })).body.tokens).toBe(1);
    expect((await price('inpaint', { prompt: 'a hat', params: { image_url: 'https://example.com/a.png' } })).body.tokens).toBe(3);
    expect((await price('musicgen', { prompt: 'calm piano', duration: 60 })).body.tokens).toBe(9);
    expect((await price('vendor-scribe-v2', {})).body.tokens).toBe(2);
  });

  test('text models: the reservation for the prompt and max_tokens', async () => {
    const model = requireModel('gpt-6.1-sol');
    const prompt = 'Write a haiku about autumn. '.repeat(20);
    const res = await price('gpt-6.1-sol', { prompt, max_tokens: 500 });
    expect(res.status).toBe(200);
    const expected = estimateChatReservation(
      model,
      estimatePromptTokens([{ role: 'user', content: prompt }]),
      resolveMaxTokens(model, 500),
    );
    expect(res.body.tokens).toBe(expected);
    const bigger = await price('gpt-6.1-sol', { prompt, max_tokens: 8000 });
    expect(bigger.body.tokens).toBeGreaterThan(expected);
    const defaults = await price('gpt-6.1-sol', {});
    expect(defaults.body.tokens).toBe(
      estimateChatReservation(model, estimatePromptTokens([{ role: 'user', content: '' }]), resolveMaxTokens(model)),
    );
  });

  test('the same validation as generate: fields the model does not take, bad values, missing inputs', async () => {
    for (const [slug, body, field] of [
      ['flux-dev', { prompt: 'a fox', size: '1x1' }, 'size'],
      ['flux-dev', {}, 'prompt'],
      ['flux-dev', { prompt: 'a fox', max_tokens: 10 }, 'max_tokens'],
      ['flux-dev', { prompt: 'a fox', quality: 'ultra' }, 'quality'],
      ['flux-dev', { prompt: 'a fox', model: 'gpt-image-2.6-flare' }, 'model'],
      ['gpt-6.1-sol', { prompt: 'hi', size: '1024x1024' }, 'size'],
      ['gpt-6.1-sol', { prompt: 'hi', max_tokens: 0 }, 'max_tokens'],
      ['upscale', {}, 'params.image_url'],
      ['upscale', { params: { image_url: 'https://example.com/a.png', scale: 3 } }, 'params.scale'],
      ['musicgen', { prompt: 'x', duration: 500 }, 'duration'],
      ['gemini-omni-1.1-flash', { prompt: 'x', duration: 7 }, 'duration'],
    ] as const) {
      const res = await price(slug, body);
      expectErrorShape(res, 400, 'validation_error');
      expect([slug, res.body.field]).toEqual([slug, field]);
    }
  });

  test('an unknown model answers 404 model_not_found', async () => {
    const res = await price('no-such-model', { prompt: 'x' });
    expectErrorShape(res, 404, 'model_not_found');
  });
});
