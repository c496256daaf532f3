import { checkCatalog, connectionsFor, findListed, type AccessFor, type VendorAccess } from '../../src/core/catalog/live/check';
import type { CatalogChange } from '../../src/core/catalog/live/check';
import type { StoredFinding } from '../../src/core/catalog/live/store';
import { isRetired, resolveModel } from '../../src/core/catalog/lifecycle';
import { MODELS } from '../../src/core/catalog/models';
import type { VendorModel, VendorModels } from '../../src/core/providers/adapter';
import type { ProviderName } from '../../src/core/providers/types';
import { sandboxModelLists } from '../../src/sandbox/model-lists';
import { ApiHarness, startApi } from '../api/harness';
import { eventually } from '../support/wait';

// catalog:check retires nothing on missing data: an empty, failed or partial list leaves the vendor's models as they
// were; aliases and dated snapshot ids are matched; a model is gone only after two misses a day apart and a direct
// not-found, the admins told first; a vendor's "model not found" on a real request marks the model suspect only.

const HOUR = 3600_000;
const T0 = new Date('2026-12-01T05:17:00Z');
const at = (hours: number) => new Date(T0.getTime() + hours * HOUR);

const idsOf = (provider: ProviderName) => MODELS.filter((m) => m.provider === provider).map((m) => m.upstreamModel);

/** A vendor whose list holds `listed` and whose lookup finds `found` (ids), as the tests set them. */
function vendor(listed: string[] | 'error' | null, found: string[] | 'error' | null = null): VendorAccess {
  return {
    list:
      listed === null
        ? null
        : async () => {
            if (listed === 'error') throw new Error('503 from the list');
            return new Map(listed.map((id) => [id, { shutdownAt: null }])) as VendorModels;
          },
    retrieve:
      found === null
        ? null
        : async (id): Promise<VendorModel | null> => {
            if (found === 'error') throw new Error('timeout');
            return found.includes(id) ? { id, shutdownAt: null } : null;
          },
  };
}

/** Every vendor lists all its models, except the ones a test replaces. */
function vendors(overrides: Partial<Record<ProviderName, VendorAccess>>): AccessFor {
  return (provider) => {
    if (provider in overrides) return overrides[provider];
    if (provider === 'bfl' || provider === 'local') return undefined;
    if (provider === 'replicate') return vendor(null, idsOf('replicate'));
    return vendor(idsOf(provider), idsOf(provider));
  };
}

/** The findings of a healthy check at T0: every model live (or unchecked where there is no list). */
async function healthy(): Promise<StoredFinding[]> {
  return (await checkCatalog(vendors({}), [], T0)).findings;
}

const slugsOf = (provider: ProviderName) => MODELS.filter((m) => m.provider === provider).map((m) => m.slug);
const statusOf = (r: { report: { models: { slug: string; status: string }[] } }, slug: string) =>
  r.report.models.find((m) => m.slug === slug)!.status;

describe('a list that cannot be believed changes nothing', () => {
  test.each([
    ['empty', vendor([], idsOf('anthropic'))],
    ['failed', vendor('error', idsOf('anthropic'))],
    ['partial (one of three)', vendor(['claude-opus-4-8'], [])],
  ])('%s: every model of the vendor is unchecked this time, nothing stored changes, nobody is told', async (_, anthropic) => {
    const before = await healthy();
    const r = await checkCatalog(vendors({ anthropic }), before, at(24));
    for (const slug of slugsOf('anthropic')) expect([slug, statusOf(r, slug)]).toEqual([slug, 'unchecked']);
    expect(r.changes).toEqual([]);
    const stored = (slug: string, findings: StoredFinding[]) => findings.find((f) => f.slug === slug);
    for (const slug of slugsOf('anthropic')) expect(stored(slug, r.findings)).toEqual(stored(slug, before));
    // ...and the next day, still nothing: no miss was ever recorded.
    const again = await checkCatalog(vendors({ anthropic }), r.findings, at(48));
    expect(again.changes).toEqual([]);
    expect(again.findings.filter((f) => f.provider === 'anthropic').every((f) => f.status === 'live' && f.missingSince === null)).toBe(
      true,
    );
  });

  test('a vendor asked one model at a time that finds fewer than half of them is not believed either', async () => {
    const replicate = vendor(null, idsOf('replicate').slice(0, 2));
    const r = await checkCatalog(vendors({ replicate }), await healthy(), at(24));
    for (const slug of slugsOf('replicate')) expect(statusOf(r, slug)).toBe('unchecked');
    expect(r.changes).toEqual([]);
  });
});

describe('aliases and dated snapshot ids', () => {
  test('a list of dated ids keeps the alias live (Anthropic, xAI, OpenAI snapshots)', async () => {
    const anthropic = vendor(['claude-haiku-4-5-20251001', 'claude-sonnet-4-6', 'claude-opus-4-8', 'claude-3-haiku-20240307']);
    const xai = vendor(['grok-3-mini', 'grok-4.20-0309-non-reasoning', 'grok-4.3', 'grok-imagine-image-2.0']);
    const r = await checkCatalog(vendors({ anthropic, xai }), [], T0);
    expect(statusOf(r, 'claude-haiku-4-5')).toBe('live');
    expect(statusOf(r, 'grok-4.20')).toBe('live');
    expect(r.changes).toEqual([]);
    const snapshots = new Map([['gpt-6.1-sol-2026-09-29', { shutdownAt: '2027-06-01' }]]);
    expect(findListed('gpt-6.1-sol', snapshots)).toEqual({ shutdownAt: '2027-06-01' });
    // Another model is not a snapshot.
    expect(findListed('gpt-6.1', snapshots)).toBeUndefined();
    expect(findListed('claude-haiku-4', new Map([['claude-haiku-4-5-20251001', { shutdownAt: null }]]))).toBeUndefined();
  });
});

describe('gone takes two misses a day apart and a direct not-found, and the admins hear first', () => {
  const luna = MODELS.find((m) => m.slug === 'gpt-6-luna')!;
  const withoutLuna = idsOf('openai').filter((id) => id !== luna.upstreamModel);

  test('missed, warned; missed again within the day, still nothing; a day later and not found: gone', async () => {
    const openai = vendor(withoutLuna, withoutLuna);
    const first = await checkCatalog(vendors({ openai }), await healthy(), at(0.5));
    expect(statusOf(first, luna.slug)).toBe('unchecked');
    expect(first.changes).toEqual([{ slug: luna.slug, before: 'live', status: 'missing', shutdownAt: null, replacement: null }]);
    expect(first.findings.find((f) => f.slug === luna.slug)).toMatchObject({ status: 'live', missingSince: at(0.5) });

    const soon = await checkCatalog(vendors({ openai }), first.findings, at(23));
    expect(statusOf(soon, luna.slug)).toBe('unchecked');
    expect(soon.changes).toEqual([]);

    const later = await checkCatalog(vendors({ openai }), soon.findings, at(24.5));
    expect(statusOf(later, luna.slug)).toBe('gone');
    expect(later.changes).toEqual([{ slug: luna.slug, before: 'live', status: 'gone', shutdownAt: null, replacement: null }]);
    expect(later.findings.find((f) => f.slug === luna.slug)).toMatchObject({ status: 'gone' });
  });

  test('a model the list leaves out but the vendor still finds is live: the list was partial', async () => {
    const openai = vendor(withoutLuna, idsOf('openai'));
    const r = await checkCatalog(vendors({ openai }), await healthy(), at(30));
    expect(statusOf(r, luna.slug)).toBe('live');
    expect(r.changes).toEqual([]);
    expect(r.findings.find((f) => f.slug === luna.slug)).toMatchObject({ missingSince: null });
  });

  test('without a direct not-found there is no gone: no lookup documented (DeepSeek), or the lookup failed', async () => {
    const flash = MODELS.find((m) => m.slug === 'deepseek-v4-flash')!;
    const deepseek = vendor(['deepseek-v4-pro'], null);
    let findings = await healthy();
    const told: CatalogChange[][] = [];
    for (const hours of [1, 30, 60, 200]) {
      const r = await checkCatalog(vendors({ deepseek }), findings, at(hours));
      expect(statusOf(r, flash.slug)).toBe('unchecked');
      told.push(r.changes);
      findings = r.findings;
    }
    expect(told.flat().map((c) => [c.slug, c.status])).toEqual([[flash.slug, 'missing']]);

    const openai = vendor(withoutLuna, 'error');
    let openaiFindings = await healthy();
    for (const hours of [1, 30, 60]) {
      const r = await checkCatalog(vendors({ openai }), openaiFindings, at(hours));
      expect(statusOf(r, luna.slug)).toBe('unchecked');
      openaiFindings = r.findings;
    }
  });

  test('listed again after the warning: back, and the admins hear it', async () => {
    const missing = await checkCatalog(vendors({ openai: vendor(withoutLuna, withoutLuna) }), await healthy(), at(1));
    const back = await checkCatalog(vendors({}), missing.findings, at(2));
    expect(statusOf(back, luna.slug)).toBe('live');
    expect(back.changes).toEqual([{ slug: luna.slug, before: 'live', status: 'live', shutdownAt: null, replacement: null }]);
    expect(back.findings.find((f) => f.slug === luna.slug)).toMatchObject({ missingSince: null });
  });
});

describe('through the service and the sandbox', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
    await api.services.catalog.load();
  }, 60_000);
  afterAll(async () => {
    sandboxModelLists.reset();
    await api?.close();
  });
  afterEach(() => sandboxModelLists.reset());

  const check = (hours: number) => api.services.catalog.check(connectionsFor(api.services.connections), at(hours));

  test('an empty or failing vendor list retires nothing; the admins are told of a gone model before it is retired', async () => {
    await check(0);
    for (const how of ['empty', 'error'] as const) {
      sandboxModelLists.breakList('openai', how);
      const r = await check(30);
      expect(r.changes).toEqual([]);
      for (const m of r.report.models.filter((x) => x.provider === 'openai')) expect([m.slug, m.status]).toEqual([m.slug, 'unchecked']);
      for (const slug of slugsOf('openai')) expect(isRetired(slug)).toBe(false);
    }
    sandboxModelLists.reset();

    sandboxModelLists.unlist('openai', 'gpt-6.1-terra');
    const heard: { changes: CatalogChange[]; retiredWhenTold: boolean }[] = [];
    api.services.catalog.onChange((changes) =>
      heard.push({ changes, retiredWhenTold: changes.some((c) => c.status === 'gone') && isRetired('gpt-6.1-terra') }),
    );
    await check(40);
    expect(isRetired('gpt-6.1-terra')).toBe(false);
    await check(65);
    expect(heard.map((h) => h.changes.map((c) => [c.slug, c.status]))).toEqual([
      [['gpt-6.1-terra', 'missing']],
      [['gpt-6.1-terra', 'gone']],
    ]);
    // Told while it was still in service; retired once the findings were kept.
    expect(heard[1]!.retiredWhenTold).toBe(false);
    expect(isRetired('gpt-6.1-terra')).toBe(true);
    sandboxModelLists.reset();
    await check(66);
    expect(isRetired('gpt-6.1-terra')).toBe(false);
  }, 60_000);

  test('"model not found" on a real request marks the model suspect and tells the admins once; nothing is retired', async () => {
    const heard: CatalogChange[] = [];
    api.services.catalog.onChange((changes) => heard.push(...changes.filter((c) => c.status === 'suspect')));
    sandboxModelLists.unlist('openai', 'gpt-6-luna');
    const key = await api.apiKey(await api.account('vip'));
    const ask = () =>
      api.request('POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'gpt-6-luna', messages: [{ role: 'user', content: 'hi' }] },
      });
    expect((await ask()).status).toBeGreaterThanOrEqual(400);
    await eventually(async () => (heard.length > 0 ? true : undefined), 10_000, 'the admins told');
    expect(heard).toEqual([{ slug: 'gpt-6-luna', before: null, status: 'suspect', shutdownAt: null, replacement: null }]);
    const [row] = await api.db.dataSource.query(`SELECT suspect_since, status FROM catalog_vendor_status WHERE slug = 'gpt-6-luna'`);
    expect(row.suspect_since).not.toBeNull();
    // Still in service, and a second failure is no news.
    expect(isRetired('gpt-6-luna')).toBe(false);
    expect(resolveModel('gpt-6-luna').model.slug).toBe('gpt-6-luna');
    await ask();
    expect(await api.services.catalog.modelNotFound('gpt-6-luna')).toBe(false);
    expect(heard).toHaveLength(1);

    // A check that finds it clears the mark.
    sandboxModelLists.reset();
    await check(100);
    const [after] = await api.db.dataSource.query(`SELECT suspect_since FROM catalog_vendor_status WHERE slug = 'gpt-6-luna'`);
    expect(after.suspect_since).toBeNull();
  }, 60_000);
});
