import { listModels, requireModel } from '../../src/core/catalog/catalog';
import { ParamError } from '../../src/core/catalog/errors';
import { MAX_PROMPT_LENGTH } from '../../src/core/catalog/limits';
import { parseGenerateCommand } from '../../src/api/v2/generate-body';
import {
  IMAGE_PART_TOKENS,
  defaultMaxTokens,
  estimateChatReservation,
  estimatePromptTokens,
  isNonSquareSize,
  priceChatUsage,
  priceRange,
  quoteGeneration,
  resolveMaxTokens,
} from '../../src/core/catalog/pricing';
import type { ModelDefinition } from '../../src/core/catalog/types';

const all = listModels();
const media = all.filter((m) => m.category !== 'text');
const text = all.filter((m) => m.category === 'text');

const IMG = 'https://example.com/a.png';
const TEXT_LENGTHS = [1, 7, 100, 999, 1000, 1001, 2500, MAX_PROMPT_LENGTH];

/** Every request body a model accepts, over all its priced options, as the API would receive it. */
function bodiesFor(m: ModelDefinition): Record<string, unknown>[] {
  const base = { model: m.slug, prompt: 'a lighthouse at dusk' };
  switch (m.category) {
    case 'image':
      return m.config.sizes.flatMap((size) =>
        m.config.qualities.map((quality) => ({
          ...base,
          size,
          quality,
          ...(m.config.image_input === 'required' ? { image_url: IMG } : {}),
        })),
      );
    case 'video': {
      const sizes: (string | undefined)[] = m.config.sizes.length > 0 ? m.config.sizes : [undefined];
      return sizes.flatMap((size) =>
        m.config.durations.map((duration) => ({
          ...base,
          duration,
          ...(size ? { size } : {}),
          ...(m.config.image_input === 'required' ? { image_url: IMG } : {}),
        })),
      );
    }
    case 'tts':
      return TEXT_LENGTHS.map((n) => ({ ...base, prompt: 'é'.repeat(n) }));
    case 'music': {
      const out = [];
      for (let d = m.config.min_duration; d <= m.config.max_duration; d++) out.push({ ...base, duration: d });
      return out;
    }
    case 'tool': {
      const images =
        m.config.input === 'image_pair' ? { params: { source_image_url: IMG, target_image_url: IMG } } : { params: { image_url: IMG } };
      const prompts = m.config.requires_prompt ? ['watercolour'] : ['', 'anything'];
      const scales: (number | undefined)[] = m.config.scales.length > 0 ? m.config.scales : [undefined];
      return prompts.flatMap((prompt) =>
        scales.map((scale) => ({
          model: m.slug,
          prompt,
          ...images,
          params: { ...images.params, ...(scale ? { scale } : {}) },
        })),
      );
    }
    default:
      return [];
  }
}

describe('media, tool, stt and music prices', () => {
  test('every option combination of every model is priced as an integer >= 1 within [min, max]', () => {
    let checked = 0;
    for (const m of media) {
      const range = priceRange(m);
      expect(range.min).toBeGreaterThanOrEqual(1);
      const bodies = m.category === 'stt' ? [] : bodiesFor(m);
      if (m.category !== 'stt') expect(bodies.length).toBeGreaterThan(0);
      for (const body of bodies) {
        const { model, params } = parseGenerateCommand(body);
        const price = quoteGeneration(model, params);
        expect([m.slug, Number.isInteger(price)]).toEqual([m.slug, true]);
        expect(price).toBeGreaterThanOrEqual(Math.max(1, range.min));
        expect(price).toBeLessThanOrEqual(range.max);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  test('min and max are reached by some option (the range is tight)', () => {
    for (const m of media.filter((x) => x.category === 'image' || x.category === 'video')) {
      const prices = bodiesFor(m).map((b) => {
        const { model, params } = parseGenerateCommand(b);
        return quoteGeneration(model, params);
      });
      expect([m.slug, Math.min(...prices), Math.max(...prices)]).toEqual([m.slug, priceRange(m).min, priceRange(m).max]);
    }
  });

  test('fixed prices from the spec tables', () => {
    const fixed = (slug: string) => quoteGeneration(requireModel(slug));
    expect(fixed('upscale')).toBe(1);
    expect(fixed('inpaint')).toBe(3);
    expect(fixed('gpt-transcribe')).toBe(2);
    expect(fixed('vendor-scribe-v2')).toBe(2);
    expect(fixed('musicgen')).toBe(9);
    // the music duration does not change the price
    expect(quoteGeneration(requireModel('vendor-music'), { durationSeconds: 15 })).toBe(58);
    expect(quoteGeneration(requireModel('vendor-music'), { durationSeconds: 120 })).toBe(58);
  });

  test('hd raises the price where offered; a size never costs more than twice the square one', () => {
    for (const slug of ['gpt-image-2.6-flare', 'gpt-image-2.6-sunburst']) {
      const gptImage = requireModel(slug);
      const square = quoteGeneration(gptImage, { size: '1024x1024', quality: 'standard' });
      expect(quoteGeneration(gptImage, { size: '1024x1024', quality: 'hd' })).toBeGreaterThan(square);
      expect(quoteGeneration(gptImage, { size: '1024x1536', quality: 'hd' })).toBeGreaterThan(
        quoteGeneration(gptImage, { size: '1024x1536', quality: 'standard' }),
      );
    }

    // a model whose vendor charges the same for every size does too
    const flux = requireModel('flux-dev');
    expect(quoteGeneration(flux, { size: '768x1344' })).toBe(quoteGeneration(flux, { size: '1024x1024' }));
    for (const m of listModels({ category: 'image' })) {
      if (m.category !== 'image') continue;
      const sq = quoteGeneration(m, { size: m.config.default_size });
      for (const size of m.config.sizes) expect(quoteGeneration(m, { size })).toBeLessThanOrEqual(2 * sq);
    }
  });

  test('Starter image models fit the 50-token Starter grant at least three times', () => {
    for (const m of listModels({ category: 'image', minPlan: 'free' })) expect(priceRange(m).max).toBeLessThanOrEqual(16);
  });

  test('video is priced per second: longer clips cost more, each duration at the vendor per-second rate', () => {
    const omni11 = requireModel('gemini-omni-1.1-flash');
    const omni12 = requireModel('gemini-omni-1.2-flash');
    expect(quoteGeneration(omni11, { durationSeconds: 8 })).toBe(2 * quoteGeneration(omni11, { durationSeconds: 4 }));
    // Google lists Omni 1.2 Flash below 1.1 ($0.07 against $0.10 a second at 720p).
    for (const d of [4, 6, 8, 10]) {
      expect(quoteGeneration(omni12, { durationSeconds: d })).toBeLessThan(quoteGeneration(omni11, { durationSeconds: d }));
    }
    expect(() => quoteGeneration(omni11, { durationSeconds: 5 })).toThrow(ParamError);
  });

  test('speech is priced by characters with a minimum', () => {
    const tts = requireModel('vendor-v2');
    const short = quoteGeneration(tts, { prompt: 'Hi' });
    const long = quoteGeneration(tts, { prompt: 'x'.repeat(4000) });
    expect(short).toBe(priceRange(tts).min);
    expect(long).toBe(priceRange(tts).max);
    expect(long).toBeGreaterThan(short);
    // characters, not UTF-16 units: 1000 emoji cost the same as 1000 letters
    expect(quoteGeneration(tts, { prompt: '😀'.repeat(1000) })).toBe(quoteGeneration(tts, { prompt: 'a'.repeat(1000) }));
  });

  test('quote rejects options the model does not offer and refuses text models', () => {
    expect(() => quoteGeneration(requireModel('sdxl'), { size: '1024x1536' })).toThrow(ParamError);
    expect(() => quoteGeneration(requireModel('sdxl'), { quality: 'hd' })).toThrow(ParamError);
    expect(() => quoteGeneration(requireModel('gpt-6.1-sol'), {})).toThrow(TypeError);
  });

  test('isNonSquareSize reads both pixel sizes and aspect ratios', () => {
    expect([isNonSquareSize('1024x1024'), isNonSquareSize('1:1'), isNonSquareSize('768x1344'), isNonSquareSize('16:9')]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });
});

describe('text prices', () => {
  const usages = [
    [0, 0],
    [1, 1],
    [10, 5],
    [1000, 1000],
    [5000, 300],
    [30000, 4000],
  ];

  test('usage prices are integers >= the minimum and within the published range', () => {
    for (const m of text) {
      if (m.category !== 'text') continue;
      const range = priceRange(m);
      for (const [promptTokens, completionTokens] of usages) {
        const price = priceChatUsage(m, { promptTokens: promptTokens!, completionTokens: completionTokens! });
        expect(Number.isInteger(price)).toBe(true);
        expect(price).toBeGreaterThanOrEqual(Math.max(1, m.pricing.min));
        expect(price).toBeLessThanOrEqual(range.max);
      }
      const full = priceChatUsage(m, {
        promptTokens: m.config.max_context - m.config.max_output_tokens,
        completionTokens: m.config.max_output_tokens,
      });
      expect(full).toBe(range.max);
    }
  });

  test('an ordinary request costs 1 on every Starter text model; Basic+ minimums are higher', () => {
    for (const m of listModels({ category: 'text', minPlan: 'free' })) {
      expect([m.slug, priceChatUsage(m, { promptTokens: 800, completionTokens: 1000 })]).toEqual([m.slug, 1]);
      // the hold for a short prompt with the default max_tokens (16384 on a reasoning model) stays within a third of
      // the 50-token Starter grant
      expect(estimateChatReservation(m, 200, defaultMaxTokens(m))).toBeLessThanOrEqual(16);
    }
    for (const m of text.filter((x) => x.minPlan === 'basic')) {
      if (m.category !== 'text') continue;
      expect(m.pricing.min).toBeGreaterThan(1);
    }
    const opus = requireModel('claude-opus-4-8');
    const mini = requireModel('gpt-6.1-terra');
    const usage = { promptTokens: 2000, completionTokens: 2000 };
    expect(priceChatUsage(opus, usage)).toBeGreaterThan(priceChatUsage(mini, usage));
  });

  test('cached prompt tokens cost the vendor cached share of the input rate; Anthropic cache writes cost more', () => {
    const opus = requireModel('claude-opus-4-8');
    if (opus.category !== 'text') throw new Error('not text');
    expect(opus.pricing.cachedInputPer1k).toBeCloseTo(opus.pricing.inputPer1k * 0.1);
    expect(opus.pricing.cacheWritePer1k).toBeCloseTo(opus.pricing.inputPer1k * 1.25);
    const plain = { promptTokens: 100_000, completionTokens: 100 };
    const full = priceChatUsage(opus, plain);
    const read = priceChatUsage(opus, { ...plain, cachedTokens: 90_000 });
    const written = priceChatUsage(opus, { ...plain, cacheWriteTokens: 90_000 });
    // Opus 4.8: $5 input, $0.50 cache read, $25 output per million: 1, 0.1 and 5 tokens per 1000.
    expect(read).toBe(Math.ceil((10_000 * 1 + 90_000 * 0.1 + 100 * 5) / 1000));
    expect(read).toBeLessThan(full);
    expect(written).toBeGreaterThan(full);
    // Cache counts beyond the prompt are capped at the prompt, never priced below zero input.
    expect(priceChatUsage(opus, { ...plain, cachedTokens: 10_000_000 })).toBe(priceChatUsage(opus, { ...plain, cachedTokens: 100_000 }));
    // OpenAI bills a 30-minute cache write at 1.25x input too; Gemini bills no write (it costs the input price).
    const gpt = requireModel('gpt-6.1-sol');
    if (gpt.category !== 'text') throw new Error('not text');
    expect(gpt.pricing.cacheWritePer1k).toBeCloseTo(gpt.pricing.inputPer1k * 1.25);
    const gemini = requireModel('gemini-3.1-pro');
    if (gemini.category !== 'text') throw new Error('not text');
    expect(gemini.pricing.cacheWritePer1k).toBe(gemini.pricing.inputPer1k);
  });

  test('more usage never costs less', () => {
    const m = requireModel('gpt-6.1-sol');
    let last = 0;
    for (let n = 0; n <= 20000; n += 250) {
      const price = priceChatUsage(m, { promptTokens: n, completionTokens: n });
      expect(price).toBeGreaterThanOrEqual(last);
      last = price;
    }
    expect(last).toBeGreaterThan(priceChatUsage(m, { promptTokens: 0, completionTokens: 0 }));
  });

  test('garbage usage numbers never produce NaN or less than the minimum', () => {
    const m = requireModel('gpt-6.1-sol');
    for (const bad of [NaN, -5, Infinity, -Infinity]) {
      const price = priceChatUsage(m, { promptTokens: bad, completionTokens: bad });
      expect(Number.isNaN(price)).toBe(false);
      expect(price).toBe(m.category === 'text' ? m.pricing.min : -1);
    }
  });

  test('reservation covers any usage up to max_tokens, and settlement never exceeds it', () => {
    for (const m of text) {
      const promptTokens = 1500;
      const maxTokens = 2000;
      const reserved = estimateChatReservation(m, promptTokens, maxTokens);
      for (const completionTokens of [0, 1, 500, 1999, 2000]) {
        expect(priceChatUsage(m, { promptTokens, completionTokens })).toBeLessThanOrEqual(reserved);
      }
    }
  });

  test('max_tokens is capped at the model output limit and defaults when absent', () => {
    const m = requireModel('deepseek-v4-flash');
    if (m.category !== 'text') throw new Error('not text');
    expect(resolveMaxTokens(m, 10 ** 9)).toBe(m.config.max_output_tokens);
    expect(resolveMaxTokens(m, undefined)).toBe(defaultMaxTokens(m));
    expect(resolveMaxTokens(m, 0)).toBe(defaultMaxTokens(m));
    expect(resolveMaxTokens(m, 100)).toBe(100);
    expect(estimateChatReservation(m, 10, 10 ** 9)).toBe(estimateChatReservation(m, 10, m.config.max_output_tokens));
    expect(() => defaultMaxTokens(requireModel('sdxl'))).toThrow(TypeError);
  });

  test('prompt estimate: about chars/4 for English, conservative for other scripts, overhead per message', () => {
    const english = 'a'.repeat(400);
    const one = estimatePromptTokens([{ role: 'user', content: english }]);
    expect(one).toBeGreaterThanOrEqual(100);
    expect(one).toBeLessThan(120);
    const two = estimatePromptTokens([
      { role: 'system', content: english },
      { role: 'user', content: english },
    ]);
    expect(two - one).toBeGreaterThan(100); // second message adds its text plus framing
    const cyrillic = estimatePromptTokens([{ role: 'user', content: 'я'.repeat(400) }]);
    expect(cyrillic).toBeGreaterThanOrEqual(400);
    const withImage = estimatePromptTokens([{ role: 'user', content: [{ type: 'text', text: english }, { type: 'image' }] }]);
    expect(withImage - one).toBe(IMAGE_PART_TOKENS);
    expect(estimatePromptTokens([])).toBeGreaterThan(0);
  });
});
