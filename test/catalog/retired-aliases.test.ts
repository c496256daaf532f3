import { findModel, requireModel } from '../../src/core/catalog/catalog';
import { ModelRetiredError } from '../../src/core/catalog/errors';
import { applyCatalogState, catalogEntry, isRetired, lifecycleOf, resolveModel } from '../../src/core/catalog/lifecycle';
import { MODELS, RETIRED_ALIASES } from '../../src/core/catalog/models';
import { normalizeGenerateParams } from '../../src/core/catalog/params';
import { priceChatUsage, quoteGeneration } from '../../src/core/catalog/pricing';
import type { ModelDefinition } from '../../src/core/catalog/types';
import { startWorkers } from '../../src/jobs/workers';
import { syntheticWav } from '../../src/sandbox/synthetic';
import { ApiHarness, startApi } from '../api/harness';
import { multipart } from '../support/multipart';
import { eventually } from '../support/wait';

// The slugs the 2026-11-27 refresh retired keep working: each resolves (through a chain without cycles) to a live
// catalog model of the same category, and both doors serve requests naming it with that model, at its price, saying
// so. Dates are not checked against today: they are the vendors' on the day of the refresh.

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
  await api.services.catalog.load();
  // Video runs as a job: the workers submit it and poll the vendor.
  await api.services.boss.start();
  await startWorkers(api.services.boss, api.services);
}, 60_000);

afterAll(async () => {
  await api?.close();
});

/** The slugs a retired slug's replacements pass through, ending at the first one in service. */
function chainOf(slug: string): string[] {
  const chain = [slug];
  for (let next = lifecycleOf(slug)?.replacement ?? null; next !== null; next = lifecycleOf(next)?.replacement ?? null) {
    if (chain.includes(next)) throw new Error(`replacement cycle: ${[...chain, next].join(' -> ')}`);
    chain.push(next);
    if (!isRetired(next)) break;
  }
  return chain;
}

describe('retired slugs resolve to live replacements', () => {
  test('the refreshes retired the seventeen slugs they name, none of them a catalog model or listed', () => {
    expect(RETIRED_ALIASES.map((a) => a.slug).sort()).toEqual(
      [
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
        'whisper-1',
      ].sort(),
    );
    const live = new Set(MODELS.map((m) => m.slug));
    for (const alias of RETIRED_ALIASES) {
      expect([alias.slug, live.has(alias.slug), findModel(alias.slug)]).toEqual([alias.slug, false, undefined]);
      expect(isRetired(alias.slug)).toBe(true);
    }
  });

  test('every chain ends at a live model of the same category, without a cycle, on the plan of the retired one or below', () => {
    for (const alias of RETIRED_ALIASES) {
      const chain = chainOf(alias.slug);
      const served = chain[chain.length - 1]!;
      const model = requireModel(served);
      expect([alias.slug, isRetired(served), model.category]).toEqual([alias.slug, false, alias.category]);
      expect(resolveModel(alias.slug)).toMatchObject({
        model: { slug: served },
        replacedFrom: alias.slug,
        shutdownAt: alias.lifecycle.shutdownAt,
      });
      expect(catalogEntry(alias.slug)).toMatchObject({ slug: alias.slug, provider: alias.provider, upstreamModel: alias.upstreamModel });
    }
  });

  test('a replacement cycle (operators can make one with catalog:set) answers 410 instead of looping', () => {
    expect(chainOf('gpt-4o')).toEqual(['gpt-4o', 'gpt-6-luna']);
    const past = '2000-01-01';
    try {
      applyCatalogState({
        overrides: [
          { slug: 'gpt-6-luna', replacement: 'gpt-6.1-sol', shutdownAt: past, enabled: null },
          { slug: 'gpt-6.1-sol', replacement: 'gpt-6-luna', shutdownAt: past, enabled: null },
        ],
        findings: [],
      });
      expect(() => chainOf('gpt-4o')).toThrow('replacement cycle: gpt-4o -> gpt-6-luna -> gpt-6.1-sol -> gpt-6-luna');
      expect(() => resolveModel('gpt-4o')).toThrow(ModelRetiredError);
    } finally {
      applyCatalogState({ overrides: [], findings: [] });
    }
    expect(resolveModel('gpt-4o').model.slug).toBe('gpt-6-luna');
  });
});

const textAliases = RETIRED_ALIASES.filter((a) => a.category === 'text');
const mediaAliases = RETIRED_ALIASES.filter((a) => a.category !== 'text' && a.category !== 'stt');

describe('/v1/chat/completions serves a retired text slug with its replacement, at the replacement price', () => {
  test.each(textAliases.map((a) => [a.slug, a.lifecycle.replacement]))('%s -> %s', async (slug, replacement) => {
    const account = await api.account('vip');
    const key = await api.apiKey(account);
    const res = await api.request('POST', '/v1/chat/completions', {
      token: key,
      body: { model: slug, messages: [{ role: 'user', content: 'What is the capital of France?' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe(replacement);
    expect(res.headers.get('x-model-replaced')).toBe(`${slug}->${replacement}`);
    const usage = { promptTokens: res.body.usage.prompt_tokens, completionTokens: res.body.usage.completion_tokens };
    expect(res.body.service.tokens_spent).toBe(priceChatUsage(requireModel(replacement), usage));
    const [row] = await api.db.dataSource.query(
      `SELECT model_slug, tokens_spent FROM generations WHERE user_id = $1 ORDER BY id DESC LIMIT 1`,
      [account.user.id],
    );
    expect(row).toMatchObject({ model_slug: replacement, tokens_spent: res.body.service.tokens_spent });
  });
});

/** What the replacement quotes for a request naming only the prompt (its defaults fill the rest). */
function quoteFor(model: ModelDefinition, prompt: string): number {
  return quoteGeneration(model, normalizeGenerateParams(model, { model: model.slug, prompt }));
}

describe('/api/v2/generate serves a retired media slug with its replacement, at the replacement price', () => {
  test.each(mediaAliases.map((a) => [a.slug, a.lifecycle.replacement]))('%s -> %s', async (slug, replacement) => {
    const account = await api.account('vip');
    const token = await api.accessToken(account);
    const prompt = 'a lighthouse on a cliff at dusk';
    const res = await api.request('POST', '/api/v2/generate', { token, body: { model: slug, prompt } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-model-replaced')).toBe(`${slug}->${replacement}`);
    expect(res.body).toMatchObject({ model_slug: replacement });
    expect(res.body.warnings).toEqual([
      { type: 'model-replaced', requested: slug, model: replacement, message: expect.stringContaining(`${slug} is retired`) },
    ]);
    const price = quoteFor(requireModel(replacement), prompt);
    // Asynchronous models (video) answer pending; the charge is settled when the job completes.
    const done = await eventually(async () => {
      const view = await api.request('GET', `/api/v2/generate/${res.body.id}`, { token });
      return view.body.status === 'completed' ? view.body : undefined;
    });
    expect(done).toMatchObject({ model_slug: replacement, tokens_spent: price });
  });
});

describe('/api/v2/stt serves the retired Scribe slug with Scribe v2', () => {
  test('vendor-scribe -> vendor-scribe-v2, at its price', async () => {
    const account = await api.account('vip');
    const token = await api.accessToken(account);
    const form = multipart([
      { name: 'audio', value: syntheticWav(1), filename: 'note.wav', type: 'audio/wav' },
      { name: 'model', value: 'vendor-scribe' },
    ]);
    const res = await api.request('POST', '/api/v2/stt', { token, raw: form.body, headers: { 'Content-Type': form.type } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-model-replaced')).toBe('vendor-scribe->vendor-scribe-v2');
    expect(res.body).toMatchObject({ model_slug: 'vendor-scribe-v2', tokens_spent: quoteGeneration(requireModel('vendor-scribe-v2')) });
  });
});
