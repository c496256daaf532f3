import { requireModel } from '../../src/core/catalog/catalog';
import { chatVendorUsage, mediaVendorUsage, vendorCostUsd } from '../../src/core/catalog/vendor-cost';
import { syntheticImage, syntheticWav } from '../../src/sandbox/synthetic';
import { ApiHarness, startApi } from '../api/harness';
import { multipart } from '../support/multipart';

// Every generation keeps what it used at the vendor and what that cost the operator in US dollars, at the vendor's
// list price of the model that served it (providers/<vendor>/prices.ts).

describe('the vendor cost of a usage', () => {
  test('text: uncached input, cache reads, cache writes and output, each at its own price', () => {
    const sonnet = requireModel('claude-sonnet-4-6'); // $3 / $0.30 / $3.75 / $15 per million
    const usage = chatVendorUsage({
      promptTokens: 100_000,
      completionTokens: 2000,
      cachedTokens: 60_000,
      cacheWriteTokens: 30_000,
      reasoningTokens: 500,
    });
    expect(usage).toEqual({
      input_tokens: 100_000,
      cached_input_tokens: 60_000,
      cache_write_tokens: 30_000,
      output_tokens: 2000,
      reasoning_tokens: 500,
    });
    expect(vendorCostUsd(sonnet, usage)).toBe((10_000 * 3 + 60_000 * 0.3 + 30_000 * 3.75 + 2000 * 15) / 1e6);
  });

  test('media: per image by quality, per second, per 1000 characters, per minute of audio, per run', () => {
    const params = (p: object) => p as never;
    const flare = requireModel('gpt-image-2.6-flare');
    expect(vendorCostUsd(flare, { images: 1 }, params({ size: '1024x1024', quality: 'hd' }))).toBe(0.0527);
    expect(vendorCostUsd(flare, { images: 1 }, params({ size: '1024x1536', quality: 'standard' }))).toBe(0.0132);
    const omni = requireModel('gemini-omni-1.1-flash');
    expect(mediaVendorUsage(omni, params({ durationSeconds: 6 }), { files: [] })).toEqual({ seconds: 6 });
    expect(vendorCostUsd(omni, { seconds: 6 })).toBe(0.6);
    expect(vendorCostUsd(requireModel('vendor-v2'), { characters: 2500 })).toBe(0.25);
    expect(vendorCostUsd(requireModel('gpt-transcribe'), { audio_seconds: 90 })).toBe(0.00675);
    expect(vendorCostUsd(requireModel('vendor-music'), { seconds: 30 })).toBe(0.15);
    expect(vendorCostUsd(requireModel('musicgen'), { seconds: 30 })).toBe(0.07);
    expect(vendorCostUsd(requireModel('inpaint'), { runs: 1 })).toBe(0.05);
    expect(vendorCostUsd(requireModel('text-ocr'), { runs: 1 })).toBe(0);
    // gpt-4o-transcribe reports audio tokens: 2400 a minute.
    const stt = mediaVendorUsage(requireModel('gpt-4o-transcribe'), params({}), { files: [], usage: { input_tokens: 2400 } });
    expect(stt).toEqual({ audio_seconds: 60 });
    expect(vendorCostUsd(requireModel('gpt-4o-transcribe'), stt)).toBe(0.006);
  });
});

describe('stored with each generation', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
  }, 60_000);
  afterAll(() => api?.close());

  async function row(id: number): Promise<{ status: string; vendor_usage: Record<string, number> | null; vendor_cost_usd: string | null }> {
    const [r] = await api.db.dataSource.query(`SELECT status, vendor_usage, vendor_cost_usd FROM generations WHERE id = $1`, [id]);
    return r;
  }

  test('a chat answer: the vendor usage it reported and its cost at the list price', async () => {
    const key = await api.apiKey(await api.account('vip', { planTokens: 1000 }));
    const res = await api.request('POST', '/v1/chat/completions', {
      token: key,
      body: { model: 'claude-opus-4-8', messages: [{ role: 'user', content: 'Name three rivers.' }] },
    });
    expect(res.status).toBe(200);
    const { prompt_tokens: input, completion_tokens: output } = res.body.usage;
    const [gen] = await api.db.dataSource.query(`SELECT id FROM generations WHERE model_slug = 'claude-opus-4-8' ORDER BY id DESC LIMIT 1`);
    const stored = await row(gen.id);
    expect(stored.vendor_usage).toMatchObject({ input_tokens: input, output_tokens: output });
    // $5 in, $25 out per million.
    expect(Number(stored.vendor_cost_usd)).toBeCloseTo((input * 5 + output * 25) / 1e6, 8);
    expect(Number(stored.vendor_cost_usd)).toBeGreaterThan(0);
  });

  test('media: an image, speech, a transcription and a tool each keep their usage and cost; a failure keeps none', async () => {
    const account = await api.account('vip', { planTokens: 1000 });
    const token = await api.accessToken(account);
    const generate = async (body: object) => {
      const res = await api.request('POST', '/api/v2/generate', { token, body });
      expect([res.status, res.body.status]).toEqual([200, 'completed']);
      return row(res.body.id);
    };
    expect(await generate({ model: 'flux-dev', prompt: 'a lighthouse' })).toMatchObject({
      vendor_usage: { images: 1 },
      vendor_cost_usd: '0.02500000',
    });
    expect(await generate({ model: 'gpt-image-2.6-sunburst', prompt: 'a lighthouse', quality: 'hd' })).toMatchObject({
      vendor_usage: { images: 1 },
      vendor_cost_usd: '0.05270000',
    });
    const text = 'Hello there, this is a short sentence read aloud.';
    expect(await generate({ model: 'vendor-flash-v2-5', prompt: text })).toMatchObject({
      vendor_usage: { characters: text.length },
      vendor_cost_usd: ((text.length * 0.05) / 1000).toFixed(8),
    });
    const png = (await syntheticImage(64, 64, 'x')).toString('base64');
    expect(await generate({ model: 'upscale', params: { image_url: `data:image/png;base64,${png}` } })).toMatchObject({
      vendor_usage: { runs: 1 },
      vendor_cost_usd: '0.00250000',
    });

    const form = multipart([{ name: 'audio', value: syntheticWav(3), filename: 'a.wav', type: 'audio/wav' }]);
    const stt = await api.request('POST', '/api/v2/stt', { token, raw: form.body, headers: { 'Content-Type': form.type } });
    expect(stt.status).toBe(200);
    const transcribed = await row(stt.body.id);
    expect(transcribed.vendor_usage).toEqual({ audio_seconds: 3 });
    expect(transcribed.vendor_cost_usd).toBe(((3 / 60) * 0.0045).toFixed(8));

    const failed = await api.request('POST', '/api/v2/generate', { token, body: { model: 'flux-dev', prompt: 'a fox [[fail:policy]]' } });
    expect(failed.body.status).toBe('failed');
    expect(await row(failed.body.id)).toMatchObject({ status: 'failed', vendor_usage: null, vendor_cost_usd: null });
  });
});
