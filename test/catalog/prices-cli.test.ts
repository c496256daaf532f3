import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { MODELS } from '../../src/core/catalog/models';
import { cheapestToken, priceReport } from '../../src/core/catalog/price-report';
import { priceChatUsage } from '../../src/core/catalog/pricing';
import { requireModel } from '../../src/core/catalog/catalog';
import { applyPriceOverrides } from '../../src/core/catalog/effective-prices';
import { ApiHarness, startApi } from '../api/harness';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';
import { buildOnce } from '../ops/service-process';
import { eventually } from '../support/wait';

// catalog:price (the operator's override: kept in the database, applied by every instance) and catalog:prices (each
// model's vendor cost and charge at the cheapest token sold, models below cost flagged).

const run = promisify(execFile);
const root = path.join(__dirname, '../..');
let api: ApiHarness;

beforeAll(async () => {
  buildOnce();
  api = await startApi();
  await api.services.catalog.load();
}, 60_000);
afterAll(async () => {
  applyPriceOverrides([]);
  await api?.close();
});

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', ['dist/src/cli.js', ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: api.db.url, NODE_ENV: 'test', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const rates = { rubPerUsd: 90, usdPerStar: 0.013 };

describe('the price report', () => {
  test('the cheapest token is found over every offer and both currencies', () => {
    const offers = [
      { article: 'tokens-100', tokens: 100, rub: 149, stars: 75 },
      { article: 'plan-elite-month', tokens: 25_000, rub: 4990, stars: 2500 },
    ];
    // 2500 Stars at $0.013 for 25000 tokens ($0.0013 each) beats 4990 RUB at 90 ($0.00222 each).
    expect(cheapestToken(offers, rates)).toEqual({ article: 'plan-elite-month', currency: 'XTR', usd: 0.0013 });
    expect(cheapestToken(offers, { rubPerUsd: 400, usdPerStar: 0.013 })).toMatchObject({ article: 'plan-elite-month', currency: 'RUB' });
    expect(cheapestToken([], rates)).toBeNull();
  });

  test('a model is below cost when a priced unit brings in less than the vendor charges for it', () => {
    const opus = requireModel('claude-opus-4-8');
    // 200 tokens a dollar: at $0.01 a token, $2 comes in for each $1 of cost; at $0.004, $0.80.
    const rich = priceReport([opus], [{ article: 'a', tokens: 100, rub: 90, stars: 1_000_000 }], rates);
    expect(rich.cheapest_token).toEqual({ article: 'a', currency: 'RUB', usd: 0.01 });
    expect(rich.models[0]!.lines.map((l) => [l.unit, l.vendor_usd, l.tokens, l.revenue_usd, l.below_cost])).toEqual([
      ['1M input tokens', 5, 1000, 10, false],
      ['1M cached input tokens', 0.5, 100, 1, false],
      ['1M cache-write tokens', 6.25, 1250, 12.5, false],
      ['1M output tokens', 25, 5000, 50, false],
    ]);
    expect(rich.below_cost).toEqual([]);
    const poor = priceReport([opus], [{ article: 'a', tokens: 250, rub: 90, stars: 1_000_000 }], rates);
    expect(poor.models[0]!.below_cost).toBe(true);
    expect(poor.below_cost).toEqual(['claude-opus-4-8']);
    // A per-request price the spec fixes is below cost on long audio (a minute costs the vendor, the price does not grow).
    const stt = priceReport([requireModel('gpt-transcribe')], [{ article: 'a', tokens: 100, rub: 90, stars: 1_000_000 }], rates);
    expect(stt.models[0]).toMatchObject({ override: { by: 'catalog', tokens: 2 }, below_cost: true });
    expect(stt.models[0]!.lines.map((l) => [l.unit, l.below_cost])).toEqual([
      ['1 min of audio', false],
      ['26 min of audio', true],
    ]);
  });
});

describe('npm run cli -- catalog:prices', () => {
  test('prints every model with its vendor cost, its charge and the flag, at the cheapest token sold', async () => {
    const out = await cli(['catalog:prices']);
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report.rates).toEqual({ rub_per_usd: 90, usd_per_star: 0.013 });
    // The seeded articles: the Elite plan bought with Stars is the cheapest token.
    expect(report.cheapest_token).toEqual({ article: 'plan-elite-month', currency: 'XTR', usd: 0.0013 });
    expect(report.models).toHaveLength(CATALOG_SHAPE.models);
    expect(report.models.map((m: { slug: string }) => m.slug)).toEqual(MODELS.map((m) => m.slug));
    for (const m of report.models) {
      expect(m.source).toMatch(/^https:\/\//);
      expect(m.lines.length).toBeGreaterThan(0);
      for (const l of m.lines) expect(l.below_cost).toBe(l.revenue_usd < l.vendor_usd);
      expect(m.below_cost).toBe(m.lines.some((l: { below_cost: boolean }) => l.below_cost));
    }
    expect(report.below_cost).toEqual(
      report.models.filter((m: { below_cost: boolean }) => m.below_cost).map((m: { slug: string }) => m.slug),
    );

    // The rates are settings: Stars worth more make the rubles the cheapest.
    const dear = JSON.parse((await cli(['catalog:prices'], { PRICES_USD_PER_STAR: '0.05', PRICES_RUB_PER_USD: '80' })).stdout);
    expect(dear.rates).toEqual({ rub_per_usd: 80, usd_per_star: 0.05 });
    expect(dear.cheapest_token).toEqual({ article: 'plan-elite-month', currency: 'RUB', usd: Number((4990 / 80 / 25000).toPrecision(6)) });
  }, 60_000);
});

describe('npm run cli -- catalog:price', () => {
  test('an override is kept, applied by every instance at once, and cleared back to the rule', async () => {
    const opus = requireModel('claude-opus-4-8');
    const usage = { promptTokens: 10_000, completionTokens: 10_000 };
    expect(priceChatUsage(opus, usage)).toBe(60);

    const set = await cli(['catalog:price', '--slug', 'claude-opus-4-8', '--factor', '1.5', '--reason', 'a margin on Opus']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      slug: 'claude-opus-4-8',
      override: { by: 'operator', factor: 1.5, tokens: null, reason: 'a margin on Opus' },
      token_cost: 10,
      min_token_cost: 10,
      max_token_cost: expect.any(Number),
    });
    // This process runs an instance: it hears the change and prices by it.
    await eventually(async () => (priceChatUsage(opus, usage) === 90 ? true : undefined), 10_000);
    const token = await api.accessToken(await api.account('vip'));
    const listed = await api.request('GET', '/api/v2/models?category=tool', { token });
    expect(listed.body.models.find((m: { slug: string }) => m.slug === 'upscale').token_cost).toBe(1);

    const tool = await cli(['catalog:price', '--slug', 'upscale', '--tokens', '4', '--reason', 'GPU prices rose']);
    expect(JSON.parse(tool.stdout)).toMatchObject({ override: { by: 'operator', tokens: 4 }, token_cost: 4 });
    await eventually(async () => {
      const res = await api.request('GET', '/api/v2/models?category=tool', { token });
      return res.body.models.find((m: { slug: string }) => m.slug === 'upscale').token_cost === 4 ? true : undefined;
    }, 10_000);

    // Refused: tokens on a model priced by usage, no reason, two changes at once (the rest: LiveCatalog.setPrice).
    for (const args of [
      ['--slug', 'claude-opus-4-8', '--tokens', '5', '--reason', 'x'],
      ['--slug', 'claude-opus-4-8', '--factor', '2'],
      ['--slug', 'upscale', '--factor', '2', '--tokens', '3', '--reason', 'x'],
    ]) {
      const out = await cli(['catalog:price', ...args]);
      expect({ args, code: out.code }).toEqual({ args, code: 1 });
      expect(out.stderr).toMatch(/^error: /);
    }

    for (const [slug, input, field] of [
      ['claude-opus-4-8', { factor: 0, reason: 'free' }, 'factor'],
      ['claude-opus-4-8', { factor: 101, reason: 'x' }, 'factor'],
      ['upscale', { tokens: 1.5, reason: 'x' }, 'tokens'],
      ['no-such-model', { factor: 2, reason: 'x' }, 'slug'],
    ] as const) {
      await expect(api.services.catalog.setPrice(slug, input)).rejects.toMatchObject({ field });
    }

    const cleared = await cli(['catalog:price', '--slug', 'claude-opus-4-8', '--clear']);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ slug: 'claude-opus-4-8', override: null, token_cost: 10 });
    // Back to the catalog's own override for a spec-priced tool.
    const upscale = await cli(['catalog:price', '--slug', 'upscale', '--clear']);
    expect(JSON.parse(upscale.stdout)).toMatchObject({ override: { by: 'catalog', tokens: 1 }, token_cost: 1 });
    await eventually(async () => (priceChatUsage(opus, usage) === 60 ? true : undefined), 10_000);
  }, 60_000);
});
