import {
  UnknownModelError,
  canUseModel,
  defaultSttModel,
  findModel,
  listModels,
  requireModel,
  requiredPlanFor,
  resultAsDocument,
  toPublicModel,
} from '../../src/core/catalog/catalog';
import { endingModels } from '../../src/core/catalog/lifecycle';
import { SIZE_SETS } from '../../src/core/catalog/models';
import { priceRange } from '../../src/core/catalog/pricing';
import { PROVIDER_NAMES } from '../../src/core/providers/registry';
import { CATEGORIES, PLAN_LEVEL, PLAN_SLUGS, type ModelDefinition } from '../../src/core/catalog/types';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';

const all = listModels();

// From /work/briefs/catalog-table.md: slug -> [category, provider, upstream id, tier, exec].
const TABLE: Record<string, [string, string, string, 'S' | 'B', 'sync' | 'async']> = {
  'gpt-6-luna': ['text', 'openai', 'gpt-6-luna', 'S', 'sync'],
  'gpt-5.6-luna': ['text', 'openai', 'gpt-5.6-luna', 'S', 'sync'],
  'gpt-6.1-sol': ['text', 'openai', 'gpt-6.1-sol', 'B', 'sync'],
  'gpt-6.1-terra': ['text', 'openai', 'gpt-6.1-terra', 'B', 'sync'],
  'gpt-5.6-terra': ['text', 'openai', 'gpt-5.6-terra', 'B', 'sync'],
  'gpt-6.2-sol': ['text', 'openai', 'gpt-6.2-sol', 'B', 'sync'],
  'gpt-6.2-astra': ['text', 'openai', 'gpt-6.2-astra', 'B', 'sync'],
  'claude-haiku-4-5': ['text', 'anthropic', 'claude-haiku-4-5', 'S', 'sync'],
  'claude-sonnet-4-6': ['text', 'anthropic', 'claude-sonnet-4-6', 'B', 'sync'],
  'claude-opus-4-8': ['text', 'anthropic', 'claude-opus-4-8', 'B', 'sync'],
  'gemini-3.1-flash-lite': ['text', 'google', 'gemini-3.1-flash-lite', 'S', 'sync'],
  'gemini-3.5-flash': ['text', 'google', 'gemini-3.5-flash', 'S', 'sync'],
  'gemini-3.1-pro': ['text', 'google', 'gemini-3.1-pro-preview', 'B', 'sync'],
  'grok-3-mini': ['text', 'xai', 'grok-3-mini', 'S', 'sync'],
  'grok-4.20': ['text', 'xai', 'grok-4.20-non-reasoning', 'B', 'sync'],
  'grok-4.3': ['text', 'xai', 'grok-4.3', 'B', 'sync'],
  // DeepSeek renamed its flash model (V4.1); the public slug stays.
  'deepseek-v4-flash': ['text', 'deepseek', 'deepseek-flash', 'S', 'sync'],
  'deepseek-v4-pro': ['text', 'deepseek', 'deepseek-v4-pro', 'B', 'sync'],
  'gpt-image-2.6-flare': ['image', 'openai', 'gpt-image-2.6-flare', 'B', 'sync'],
  'gpt-image-2.6-sunburst': ['image', 'openai', 'gpt-image-2.6-sunburst', 'B', 'sync'],
  'gemini-3.1-flash-image': ['image', 'google', 'gemini-3.1-flash-image', 'S', 'sync'],
  'gemini-3-pro-image': ['image', 'google', 'gemini-3-pro-image', 'B', 'sync'],
  'flux-dev': ['image', 'bfl', 'flux-dev', 'S', 'sync'],
  'flux-pro-1.1': ['image', 'bfl', 'flux-pro-1.1', 'B', 'sync'],
  'flux-pro-1.1-ultra': ['image', 'bfl', 'flux-pro-1.1-ultra', 'B', 'async'],
  'flux-kontext-pro': ['image', 'bfl', 'flux-kontext-pro', 'B', 'sync'],
  'grok-imagine-image': ['image', 'xai', 'grok-imagine-image-2.0', 'B', 'sync'],
  sdxl: ['image', 'replicate', 'stability-ai/sdxl', 'B', 'sync'],
  'sd-3.5-large': ['image', 'replicate', 'stability-ai/stable-diffusion-3.5-large', 'B', 'sync'],
  'gemini-omni-1.1-flash': ['video', 'google', 'gemini-omni-1.1-flash', 'S', 'async'],
  'gemini-omni-1.2-flash': ['video', 'google', 'gemini-omni-1.2-flash', 'B', 'async'],
  'kling-v2.1': ['video', 'replicate', 'kwaivgi/kling-v2.1', 'B', 'async'],
  'hailuo-02': ['video', 'replicate', 'minimax/hailuo-02', 'B', 'async'],
  'wan-2.2': ['video', 'replicate', 'wan-video/wan-2.2-t2v-fast', 'B', 'async'],
  'seedance-1-pro': ['video', 'replicate', 'bytedance/seedance-1-pro', 'B', 'async'],
  'gemini-3.8-flash-lite-tts': ['tts', 'google', 'gemini-3.8-flash-lite-tts', 'B', 'sync'],
  'gemini-3.8-flash-tts': ['tts', 'google', 'gemini-3.8-flash-tts', 'B', 'sync'],
  'vendor-v2': ['tts', 'elevenlabs', 'eleven_multilingual_v2', 'B', 'sync'],
  'vendor-flash-v2-5': ['tts', 'elevenlabs', 'eleven_flash_v2_5', 'B', 'sync'],
  'vendor-v3': ['tts', 'elevenlabs', 'eleven_v3', 'B', 'sync'],
  // whisper-1's successor (whisper-1 shuts down on 2027-02-26; its slug is a retired alias).
  'gpt-transcribe': ['stt', 'openai', 'gpt-transcribe', 'S', 'sync'],
  'gpt-4o-transcribe': ['stt', 'openai', 'gpt-4o-transcribe', 'B', 'sync'],
  'vendor-scribe-v2': ['stt', 'elevenlabs', 'scribe_v2', 'B', 'sync'],
  musicgen: ['music', 'replicate', 'meta/musicgen', 'S', 'async'],
  'vendor-music': ['music', 'elevenlabs', 'music_v1', 'B', 'async'],
  upscale: ['tool', 'replicate', 'nightmareai/real-esrgan', 'S', 'sync'],
  'face-swap': ['tool', 'replicate', 'codeplugtech/face-swap', 'S', 'sync'],
  'remove-bg': ['tool', 'replicate', '851-labs/background-remover', 'S', 'sync'],
  'style-transfer': ['tool', 'replicate', 'fofr/style-transfer', 'S', 'sync'],
  colorize: ['tool', 'replicate', 'piddnad/ddcolor', 'S', 'sync'],
  inpaint: ['tool', 'bfl', 'flux-pro-1.0-fill', 'S', 'sync'],
  'text-ocr': ['tool', 'local', 'tesseract-eng', 'S', 'sync'],
};

// Size set per image model, from the table.
const IMAGE_SIZE_SET: Record<string, keyof typeof SIZE_SETS> = {
  'gpt-image-2.6-flare': 'B',
  'gpt-image-2.6-sunburst': 'B',
  'gemini-3.1-flash-image': 'C',
  'gemini-3-pro-image': 'C',
  'flux-dev': 'D',
  'flux-pro-1.1': 'B',
  'flux-pro-1.1-ultra': 'C',
  'flux-kontext-pro': 'C',
  'grok-imagine-image': 'D',
  sdxl: 'D',
  'sd-3.5-large': 'C',
};

function countBy(models: readonly ModelDefinition[], key: (m: ModelDefinition) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of models) out[key(m)] = (out[key(m)] ?? 0) + 1;
  return out;
}

describe('catalog contents', () => {
  // The counts themselves are checked once, against the fixture, in shape.test.ts.
  test('every provider is used', () => {
    const used = new Set(all.map((m) => m.provider));
    expect([...used].sort()).toEqual([...PROVIDER_NAMES].sort());
  });

  test('every row of the fixed table is reproduced exactly', () => {
    expect(all.map((m) => m.slug).sort()).toEqual(Object.keys(TABLE).sort());
    for (const m of all) {
      const [category, provider, upstream, tier, exec] = TABLE[m.slug]!;
      expect([m.slug, m.category, m.provider, m.upstreamModel, m.minPlan, m.execution]).toEqual([
        m.slug,
        category,
        provider,
        upstream,
        tier === 'S' ? 'free' : 'basic',
        exec,
      ]);
    }
  });

  test('the Starter-tier models have the composition in decisions.md', () => {
    const starter = all.filter((m) => m.minPlan === 'free');
    expect(countBy(starter, (m) => m.category)).toEqual({ text: 7, image: 2, video: 1, music: 1, stt: 1, tool: 7 });
    const starterSlugs = starter.map((m) => m.slug);
    // one image model, one flash image, one flash video, the musicgen-class model, the default STT model
    expect(starterSlugs).toEqual(
      expect.arrayContaining(['flux-dev', 'gemini-3.1-flash-image', 'gemini-omni-1.1-flash', 'musicgen', 'gpt-transcribe']),
    );
    // every non-Starter model is Basic+ (paid plans unlock the whole catalog)
    expect(all.filter((m) => m.minPlan !== 'free').every((m) => m.minPlan === 'basic')).toBe(true);
  });

  test('text models stream, nothing else does; tools are all synchronous', () => {
    for (const m of all) expect(m.supportsStreaming).toBe(m.category === 'text');
    expect(all.filter((m) => m.category === 'tool').every((m) => m.execution === 'sync')).toBe(true);
  });

  test('text configs carry vision and context as in the table', () => {
    const vision = new Set([
      'gpt-6-luna',
      'gpt-5.6-luna',
      'gpt-6.1-sol',
      'gpt-6.1-terra',
      'gpt-5.6-terra',
      'gpt-6.2-sol',
      'gpt-6.2-astra',
      'claude-haiku-4-5',
      'claude-sonnet-4-6',
      'claude-opus-4-8',
      'gemini-3.1-flash-lite',
      'gemini-3.5-flash',
      'gemini-3.1-pro',
      'grok-4.3',
    ]);
    const contexts: Record<string, number> = {
      'gpt-6-luna': 1050000,
      'gpt-5.6-luna': 1050000,
      'claude-haiku-4-5': 200000,
      'gemini-3.1-flash-lite': 1048576,
      'grok-3-mini': 131072,
      'deepseek-v4-flash': 1000000,
    };
    for (const m of listModels({ category: 'text' })) {
      if (m.category !== 'text') throw new Error('filter broken');
      expect([m.slug, m.config.supports_vision]).toEqual([m.slug, vision.has(m.slug)]);
      if (contexts[m.slug]) expect(m.config.max_context).toBe(contexts[m.slug]);
      expect(m.config.default_max_tokens).toBeLessThanOrEqual(m.config.max_output_tokens);
      expect(m.config.max_output_tokens).toBeLessThan(m.config.max_context);
    }
  });

  test('image configs use the size set of the table, all three formats, negative prompt only on SD models', () => {
    for (const m of listModels({ category: 'image' })) {
      if (m.category !== 'image') throw new Error('filter broken');
      expect([m.slug, m.config.sizes]).toEqual([m.slug, [...SIZE_SETS[IMAGE_SIZE_SET[m.slug]!]]]);
      expect(m.config.formats).toEqual(['webp', 'png', 'jpeg']);
      expect(m.config.sizes).toContain(m.config.default_size);
      expect([m.slug, m.config.supports_negative_prompt]).toEqual([m.slug, m.slug === 'sdxl' || m.slug === 'sd-3.5-large']);
      // api-spec.md: a non-square size costs at most twice the square one.
      for (const q of m.config.qualities) expect(m.pricing.nonSquare[q]!).toBeLessThanOrEqual(2 * m.pricing.square[q]!);
    }
    expect(requireModel('gpt-image-2.6-flare').config).toMatchObject({ qualities: ['standard', 'hd'], styles: [] });
    expect(requireModel('gpt-image-2.6-sunburst').config).toMatchObject({ qualities: ['standard', 'hd'] });
    expect(requireModel('gemini-3.1-flash-image').config).toMatchObject({ image_input: 'optional', default_size: '1:1' });
    expect(requireModel('flux-kontext-pro').config).toMatchObject({ image_input: 'optional' });
  });

  test('video durations shown in config are the ones the price rule accepts', () => {
    for (const m of listModels({ category: 'video' })) {
      if (m.category !== 'video') throw new Error('filter broken');
      expect(m.config.durations).toEqual(m.pricing.allowedSeconds);
      expect(m.config.default_duration).toBe(m.pricing.defaultSeconds);
      expect(m.config.durations).toContain(m.config.default_duration);
      if (m.config.default_size !== null) expect(m.config.sizes).toContain(m.config.default_size);
    }
    expect(requireModel('gemini-omni-1.1-flash').config).toMatchObject({ sizes: ['16:9', '9:16'], supports_negative_prompt: false });
  });

  test('only vendor-scribe-v2 diarizes; gpt-transcribe is the default STT model', () => {
    const diarizing = listModels({ category: 'stt' }).filter((m) => m.category === 'stt' && m.config.supports_diarization);
    expect(diarizing.map((m) => m.slug)).toEqual(['vendor-scribe-v2']);
    expect(defaultSttModel().slug).toBe('gpt-transcribe');
  });

  test('music models accept 15..120 s with a 30 s default', () => {
    for (const m of listModels({ category: 'music' })) {
      expect(m.config).toMatchObject({ min_duration: 15, max_duration: 120, default_duration: 30 });
    }
  });

  test('catalog data cannot be mutated by callers', () => {
    const model = requireModel('flux-dev');
    expect(() => {
      (model.pricing as { square: { standard: number } }).square.standard = 0;
    }).toThrow(TypeError);
    expect(requireModel('flux-dev').pricing).toMatchObject({ square: { standard: 5 } });
  });
});

describe('lookups', () => {
  test('findModel / requireModel', () => {
    expect(findModel('gpt-6.1-sol')?.provider).toBe('openai');
    // A retired slug is no catalog model (lifecycle.ts resolves it to its replacement).
    expect(findModel('gpt-4o')).toBeUndefined();
    expect(findModel('no-such-model')).toBeUndefined();
    expect(requireModel('sdxl').upstreamModel).toBe('stability-ai/sdxl');
    let caught: unknown;
    try {
      requireModel('dall-e-2');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(UnknownModelError);
    expect((caught as UnknownModelError).slug).toBe('dall-e-2');
    expect((caught as UnknownModelError).message).toContain('dall-e-2');
  });

  test('listModels filters by category and by plan availability', () => {
    for (const c of CATEGORIES) {
      const models = listModels({ category: c });
      expect(models.length).toBeGreaterThan(0);
      expect(models.every((m) => m.category === c)).toBe(true);
    }
    expect(listModels({ minPlan: 'free' })).toHaveLength(CATALOG_SHAPE.starter);
    for (const plan of ['basic', 'pro', 'vip', 'elite'] as const) expect(listModels({ minPlan: plan })).toHaveLength(CATALOG_SHAPE.models);
    const starterImages = listModels({ category: 'image', minPlan: 'free' }).map((m) => m.slug);
    expect(starterImages.sort()).toEqual(['flux-dev', 'gemini-3.1-flash-image']);
  });
});

describe('access by plan', () => {
  test('PLAN_LEVEL orders the plans', () => {
    expect(PLAN_SLUGS.map((p) => PLAN_LEVEL[p])).toEqual([0, 1, 2, 3, 4]);
  });

  test('canUseModel matrix: Starter sees only Starter-tier, every paid plan sees all', () => {
    const starterModel = requireModel('gpt-6-luna');
    const basicModel = requireModel('gpt-6.1-sol');
    const expected: Record<string, [boolean, boolean]> = {
      free: [true, false],
      basic: [true, true],
      pro: [true, true],
      vip: [true, true],
      elite: [true, true],
    };
    for (const plan of PLAN_SLUGS) {
      expect([plan, canUseModel(plan, starterModel), canUseModel(plan, basicModel)]).toEqual([plan, ...expected[plan]!]);
    }
    expect(all.filter((m) => canUseModel('free', m))).toHaveLength(CATALOG_SHAPE.starter);
    expect(all.filter((m) => canUseModel('basic', m))).toHaveLength(CATALOG_SHAPE.models);
  });

  test('requiredPlanFor names the lowest plan', () => {
    expect(requiredPlanFor(requireModel('claude-opus-4-8'))).toBe('basic');
    expect(requiredPlanFor(requireModel('text-ocr'))).toBe('free');
  });
});

describe('toPublicModel', () => {
  test('has exactly the spec fields and no is_free', () => {
    const pub = toPublicModel(requireModel('flux-dev'));
    expect(Object.keys(pub).sort()).toEqual(
      [
        'slug',
        'name',
        'category',
        'provider',
        'token_cost',
        'min_token_cost',
        'max_token_cost',
        'min_plan',
        'min_plan_slug',
        'description_en',
        'supports_streaming',
        'config',
        'upstream_id',
        'deprecated_at',
        'shutdown_at',
        'replacement',
      ].sort(),
    );
    expect(pub).not.toHaveProperty('is_free');
  });

  test('min_plan_slug is null for Starter tier, the plan otherwise', () => {
    expect(toPublicModel(requireModel('flux-dev'))).toMatchObject({ min_plan: 'free', min_plan_slug: null });
    expect(toPublicModel(requireModel('gemini-3-pro-image'))).toMatchObject({ min_plan: 'basic', min_plan_slug: 'basic' });
  });

  test('prices are integers >= 1 with min <= token_cost <= max, matching priceRange', () => {
    for (const m of all) {
      const pub = toPublicModel(m);
      for (const v of [pub.token_cost, pub.min_token_cost, pub.max_token_cost]) {
        expect(Number.isInteger(v)).toBe(true);
        expect(v).toBeGreaterThanOrEqual(1);
      }
      expect(pub.min_token_cost).toBeLessThanOrEqual(pub.token_cost);
      expect(pub.token_cost).toBeLessThanOrEqual(pub.max_token_cost);
      expect({ min: pub.min_token_cost, max: pub.max_token_cost }).toEqual(priceRange(m));
    }
  });

  test('spec prices: tools 1, inpaint 3, STT 2, musicgen 9, vendor-music 58, Starter text 1', () => {
    const cost = (slug: string) => toPublicModel(requireModel(slug)).token_cost;
    for (const slug of ['upscale', 'face-swap', 'remove-bg', 'style-transfer', 'colorize', 'text-ocr']) expect(cost(slug)).toBe(1);
    expect(cost('inpaint')).toBe(3);
    for (const slug of ['gpt-transcribe', 'gpt-4o-transcribe', 'vendor-scribe-v2']) expect(cost(slug)).toBe(2);
    expect(cost('musicgen')).toBe(9);
    expect(cost('vendor-music')).toBe(58);
    for (const m of listModels({ category: 'text', minPlan: 'free' })) expect(cost(m.slug)).toBe(1);
    for (const m of all.filter((x) => x.category === 'text' && x.minPlan === 'basic')) expect(cost(m.slug)).toBeGreaterThan(1);
  });

  test('config is a copy: editing it does not change the catalog', () => {
    const pub = toPublicModel(requireModel('sdxl'));
    (pub.config as { sizes: string[] }).sizes.push('1x1');
    expect(toPublicModel(requireModel('sdxl')).config).toMatchObject({ sizes: [...SIZE_SETS.D] });
  });
});

describe('model lifecycle (refresh of 2026-11-27)', () => {
  // The dates are the vendors' on the day of the refresh (test/fixtures/SOURCES.md), not today's.
  const refreshed = new Date('2026-11-27T00:00:00Z');

  test('on the day of the refresh no catalog model is past or within 60 days of an announced shutdown', () => {
    const ending = endingModels(refreshed);
    // Only gpt-4o-transcribe is announced (deprecated), its shutdown further off, and its successor is in the catalog.
    expect(ending.map((e) => [e.slug, e.shutdownAt, e.retired, e.replacement])).toEqual([
      ['gpt-4o-transcribe', '2027-02-26', false, 'gpt-transcribe'],
    ]);
    for (const m of all) {
      if (m.lifecycle?.shutdownAt) expect(Date.parse(m.lifecycle.shutdownAt)).toBeGreaterThan(Date.parse('2027-01-26'));
    }
  });

  test('a model nearing its shutdown is reported for the start warning and marked on the Model object', () => {
    expect(endingModels(new Date('2027-04-01T00:00:00Z'))).toEqual([
      { slug: 'gemini-3.1-flash-lite', shutdownAt: '2027-05-07', deprecatedAt: null, replacement: 'gemini-3.5-flash', retired: false },
      { slug: 'gpt-4o-transcribe', shutdownAt: '2027-02-26', deprecatedAt: '2026-08-26', replacement: 'gpt-transcribe', retired: true },
    ]);
    expect(toPublicModel(requireModel('gemini-3.1-flash-lite'))).toMatchObject({ deprecated_at: null, shutdown_at: '2027-05-07' });
    expect(toPublicModel(requireModel('gpt-4o-transcribe'))).toMatchObject({
      deprecated_at: '2026-08-26',
      shutdown_at: '2027-02-26',
      replacement: 'gpt-transcribe',
    });
    expect(toPublicModel(requireModel('gpt-6-luna'))).toMatchObject({ deprecated_at: null, shutdown_at: null });
  });

  test('the models shut down or retiring by early 2027 are gone from the catalog', () => {
    for (const dead of [
      'dall-e-3',
      'imagen-4',
      'claude-sonnet-4-5',
      'claude-opus-4-1',
      'gemini-2.5-flash',
      'gemini-2.5-pro',
      'gemini-2.5-flash-lite',
      'gemini-2.5-flash-image',
      'grok-3',
      'grok-4',
      'grok-2-image',
      'gpt-4o-mini',
      'gpt-4.1-nano',
      'gpt-4o',
      'gpt-4.1',
      'o4-mini',
      'gpt-5',
      'gpt-5-mini',
      'deepseek-chat',
      'deepseek-reasoner',
      'gpt-image-1-mini',
      'gpt-image-1',
      'veo-3-fast',
      'veo-3',
      'tts-1',
      'gpt-4o-mini-tts',
      'vendor-scribe',
    ]) {
      expect(all.find((m) => m.slug === dead)).toBeUndefined();
    }
    expect(all.some((m) => /^(veo-|imagen-|gemini-2\.5|scribe_v1$)/.test(m.upstreamModel))).toBe(false);
  });
});

describe('tool rules are catalog data', () => {
  const tools = listModels({ category: 'tool' }).flatMap((m) => (m.category === 'tool' ? [m] : []));

  test('the published config follows from the rules', () => {
    for (const tool of tools) {
      expect(tool.config.input).toBe(tool.rules.inputFields.length === 2 ? 'image_pair' : 'image');
      expect(tool.config.requires_prompt).toBe(tool.rules.promptKind !== 'none');
    }
  });

  test('face-swap names its two input fields, inpaint edits, style-transfer styles; upscale and remove-bg arrive as files', () => {
    const rules = Object.fromEntries(tools.map((t) => [t.slug, t.rules]));
    expect(rules['face-swap'].inputFields).toEqual(['params.source_image_url', 'params.target_image_url']);
    expect(rules.upscale.inputFields).toEqual(['params.image_url']);
    expect([rules.inpaint.promptKind, rules['style-transfer'].promptKind, rules.colorize.promptKind]).toEqual(['edit', 'style', 'none']);
    expect(tools.filter((t) => resultAsDocument(t.slug)).map((t) => t.slug)).toEqual(['upscale', 'remove-bg']);
    expect(resultAsDocument('flux-dev')).toBe(false);
  });

  test('the rules are not published with the model', () => {
    expect(toPublicModel(requireModel('face-swap'))).not.toHaveProperty('rules');
  });
});
