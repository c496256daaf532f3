import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MODELS } from '../../src/core/catalog/models';
import { applyPriceOverrides, priceOverrideOf } from '../../src/core/catalog/effective-prices';
import { HOUSE_PRICES } from '../../src/core/catalog/house-prices';
import { characterCount } from '../../src/core/catalog/limits';
import { TOKENS_PER_USD, type PriceOverride } from '../../src/core/catalog/price-rule';
import { isNonSquareSize, priceChatUsage, quoteGeneration } from '../../src/core/catalog/pricing';
import type { ModelDefinition } from '../../src/core/catalog/types';
import { VENDOR_PRICE_LISTS, vendorPrice } from '../../src/core/providers/price-lists';
import { providerAdapters } from '../../src/core/providers/registry';
import type { VendorPrice } from '../../src/core/providers/prices';

// Every price the service charges follows from the vendor's list price by the rule, computed here on its own from
// the raw rows: 200 tokens per US dollar, rounded up per request, never below the minimum, unless an override says
// otherwise. A rate that departs from the rule without an override fails here.

const RULE = 200;
const up = (tokens: number) => Math.max(1, Math.ceil(tokens - 1e-9));
const scale = (o?: PriceOverride) => o?.factor ?? 1;

const TEXT_USAGES = [
  { promptTokens: 1000, completionTokens: 1000 },
  { promptTokens: 120_000, completionTokens: 4000, cachedTokens: 100_000 },
  { promptTokens: 50_000, completionTokens: 20_000, cacheWriteTokens: 30_000 },
  { promptTokens: 3, completionTokens: 0 },
];

/** What the rule charges for one priced request of `model`, from the raw row. */
function expectedPrices(model: ModelDefinition, price: VendorPrice, o?: PriceOverride): [label: string, tokens: number][] {
  const k = RULE * scale(o);
  switch (model.category) {
    case 'text': {
      if (price.unit !== 'tokens') throw new Error(`${model.slug}: not a token price`);
      return TEXT_USAGES.map((u) => {
        const cached = u.cachedTokens ?? 0;
        const written = u.cacheWriteTokens ?? 0;
        const usd =
          ((u.promptTokens - cached - written) * price.inputPerM +
            cached * price.cachedInputPerM +
            written * price.cacheWritePerM +
            u.completionTokens * price.outputPerM) /
          1e6;
        return [JSON.stringify(u), Math.max(model.pricing.min, up(usd * k))];
      });
    }
    case 'image':
      return model.config.sizes.flatMap((size) =>
        model.config.qualities.map((quality): [string, number] => {
          const usd =
            price.unit === 'run'
              ? price.perRun
              : price.unit === 'image'
                ? ((isNonSquareSize(size) ? (price.nonSquare ?? price.square) : price.square)[quality] ?? NaN)
                : NaN;
          return [`${size} ${quality}`, up(usd * k)];
        }),
      );
    case 'video':
      if (price.unit !== 'second') throw new Error(`${model.slug}: not a per-second price`);
      return model.config.durations.map((d) => [`${d} s`, up(price.perSecond * d * k)]);
    case 'tts':
      if (price.unit !== 'characters') throw new Error(`${model.slug}: not a per-character price`);
      return [1, 999, 1000, 4321].map((n) => [`${n} chars`, Math.max(model.pricing.min, up((price.per1kCharacters * n * k) / 1000))]);
    case 'stt':
    case 'music':
    case 'tool': {
      if (o?.tokens !== undefined) return [['request', o.tokens]];
      const usd =
        price.unit === 'audio-minute'
          ? price.perMinute
          : price.unit === 'second'
            ? price.perSecond * (model.category === 'music' ? model.config.default_duration : 0)
            : price.unit === 'run'
              ? price.perRun
              : price.unit === 'image'
                ? price.square.standard
                : NaN;
      return [['request', up(usd * k)]];
    }
  }
}

/** What the service charges for the same requests. */
function chargedPrices(model: ModelDefinition): [string, number][] {
  switch (model.category) {
    case 'text':
      return TEXT_USAGES.map((u) => [JSON.stringify(u), priceChatUsage(model, u)]);
    case 'image':
      return model.config.sizes.flatMap((size) =>
        model.config.qualities.map((quality): [string, number] => [`${size} ${quality}`, quoteGeneration(model, { size, quality })]),
      );
    case 'video':
      return model.config.durations.map((d) => [`${d} s`, quoteGeneration(model, { durationSeconds: d })]);
    case 'tts':
      return [1, 999, 1000, 4321].map((n) => {
        const prompt = 'é'.repeat(n);
        expect(characterCount(prompt)).toBe(n);
        return [`${n} chars`, quoteGeneration(model, { prompt })];
      });
    default:
      return [['request', quoteGeneration(model)]];
  }
}

afterEach(() => applyPriceOverrides([]));

describe('the vendor price table', () => {
  test('every catalog model has its vendor list price, each row with its source page and the day it was read', () => {
    for (const m of MODELS) {
      const price = vendorPrice(m.provider, m.upstreamModel);
      expect([m.slug, price.source]).toEqual([m.slug, expect.stringMatching(/^https:\/\/\S+$/)]);
      expect([m.slug, price.read]).toEqual([m.slug, expect.stringMatching(/^2026-\d{2}-\d{2}$/)]);
    }
  });

  test('each source page is in test/fixtures/SOURCES.md', () => {
    const sources = readFileSync(path.join(__dirname, '../fixtures/SOURCES.md'), 'utf8');
    const pages = new Set(Object.values(VENDOR_PRICE_LISTS).flatMap((list) => Object.values(list).map((p) => p.source)));
    for (const page of pages) expect([page, sources.includes(page)]).toEqual([page, true]);
  });

  test('each vendor declares its own list in its room (the adapter’s `prices`)', () => {
    for (const [name, adapter] of Object.entries(providerAdapters)) {
      expect([name, adapter.prices]).toEqual([name, VENDOR_PRICE_LISTS[name as keyof typeof VENDOR_PRICE_LISTS]]);
    }
  });

  test('no row is left over from a model the catalog dropped', () => {
    const used = new Set(MODELS.map((m) => `${m.provider}:${m.upstreamModel}`));
    for (const [provider, list] of Object.entries(VENDOR_PRICE_LISTS)) {
      for (const id of Object.keys(list)) expect([id, used.has(`${provider}:${id}`)]).toEqual([id, true]);
    }
  });

  test('the stale prices the issue names now follow the vendors: 0.2 tokens per 1K for each dollar per million', () => {
    const rates = (slug: string) => {
      const m = MODELS.find((x) => x.slug === slug)!;
      if (m.category !== 'text') throw new Error(slug);
      return [m.pricing.inputPer1k, m.pricing.outputPer1k];
    };
    expect(rates('claude-opus-4-8')).toEqual([1, 5]); // $5 / $25
    expect(rates('gemini-3.1-pro')).toEqual([0.4, 2.4]); // $2 / $12
    expect(rates('grok-4.20')).toEqual([0.25, 0.5]); // $1.25 / $2.50 (xAI's page; $2 / $6 was the beta price)
    expect(rates('grok-4.3')).toEqual([0.25, 0.5]); // $1.25 / $2.50
    expect(rates('deepseek-v4-pro')).toEqual([0.264, 0.792]); // $1.32 / $3.96 at peak hours
  });
});

describe('the rule', () => {
  test('TOKENS_PER_USD is the rule of models.ts before the table: 0.2 tokens per 1K tokens per dollar per million', () => {
    expect(TOKENS_PER_USD).toBe(RULE);
    expect((1_000_000 / 1000) * 0.2).toBe(RULE);
  });

  test('every price of every model is the rule applied to its list price, unless an override says otherwise', () => {
    let checked = 0;
    for (const m of MODELS) {
      const override = priceOverrideOf(m.slug)?.override;
      const expected = expectedPrices(m, vendorPrice(m.provider, m.upstreamModel), override);
      expect([m.slug, chargedPrices(m)]).toEqual([m.slug, expected]);
      checked += expected.length;
    }
    expect(checked).toBeGreaterThan(150);
  });

  test('a cached prompt token costs what the vendor’s cached price implies', () => {
    const sonnet = MODELS.find((m) => m.slug === 'claude-sonnet-4-6')!;
    // $3 input, $0.30 cache read, $3.75 cache write, $15 output per million
    expect(priceChatUsage(sonnet, { promptTokens: 100_000, completionTokens: 0, cachedTokens: 100_000 })).toBe(6);
    expect(priceChatUsage(sonnet, { promptTokens: 100_000, completionTokens: 0 })).toBe(60);
    expect(priceChatUsage(sonnet, { promptTokens: 100_000, completionTokens: 0, cacheWriteTokens: 100_000 })).toBe(75);
  });

  test('the overrides are the catalog’s own, each with a reason, each naming a catalog model', () => {
    const slugs = new Set(MODELS.map((m) => m.slug));
    for (const [slug, o] of Object.entries(HOUSE_PRICES)) {
      expect([slug, slugs.has(slug)]).toEqual([slug, true]);
      expect(o.reason.length).toBeGreaterThan(10);
      expect((o.factor === undefined) !== (o.tokens === undefined)).toBe(true);
    }
  });

  test('an operator override wins over the rule and the catalog’s override; removing it restores them', () => {
    const opus = MODELS.find((m) => m.slug === 'claude-opus-4-8')!;
    const haiku = MODELS.find((m) => m.slug === 'claude-haiku-4-5')!;
    const upscale = MODELS.find((m) => m.slug === 'upscale')!;
    const ordinary = { promptTokens: 1000, completionTokens: 1000 };
    expect(priceChatUsage(opus, ordinary)).toBe(10); // the minimum; the rule gives 6
    expect(priceChatUsage(opus, { promptTokens: 10_000, completionTokens: 10_000 })).toBe(60);

    applyPriceOverrides([
      { slug: 'claude-opus-4-8', factor: 1.5, reason: 'margin' },
      { slug: 'claude-haiku-4-5', factor: 1, reason: 'no Starter discount' },
      { slug: 'upscale', tokens: 4, reason: 'GPU prices went up' },
    ]);
    expect(priceOverrideOf('claude-opus-4-8')).toMatchObject({ by: 'operator', override: { factor: 1.5 } });
    expect(priceChatUsage(opus, { promptTokens: 10_000, completionTokens: 10_000 })).toBe(90);
    expect(priceChatUsage(haiku, ordinary)).toBe(2); // $1 / $5 at the rule
    expect(quoteGeneration(upscale)).toBe(4);
    for (const m of [opus, haiku, upscale]) {
      expect(chargedPrices(m)).toEqual(expectedPrices(m, vendorPrice(m.provider, m.upstreamModel), priceOverrideOf(m.slug)!.override));
    }

    applyPriceOverrides([]);
    expect(priceChatUsage(opus, { promptTokens: 10_000, completionTokens: 10_000 })).toBe(60);
    expect(priceChatUsage(haiku, ordinary)).toBe(1);
    expect(quoteGeneration(upscale)).toBe(1);
  });
});
