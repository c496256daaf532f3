import { listModels } from '../../src/core/catalog/catalog';
import { PROVIDER_NAMES, providerAdapters } from '../../src/core/providers/registry';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';

// The registry is the one list of vendors; each definition's declared capabilities are held against its adapter
// and against the catalog rows that name it.

test('every catalog model resolves to an adapter with the capability its category needs, as declared', () => {
  const models = listModels();
  expect(models).toHaveLength(CATALOG_SHAPE.models);
  for (const m of models) {
    const adapter = providerAdapters[m.provider];
    expect([m.slug, adapter?.name]).toEqual([m.slug, m.provider]);
    const capability = m.category === 'text' ? adapter.chat : adapter.media;
    expect([m.slug, capability !== undefined]).toEqual([m.slug, true]);
    const declared = m.category === 'text' ? adapter.capabilities.chat : adapter.capabilities.media.includes(m.category);
    expect([m.slug, m.category, declared]).toEqual([m.slug, m.category, true]);
  }
});

test('each definition declares what its adapter has: chat, media kinds, and chat-only features only with chat', () => {
  for (const name of PROVIDER_NAMES) {
    const { capabilities, chat, media } = providerAdapters[name];
    expect([name, capabilities.chat]).toEqual([name, chat !== undefined]);
    expect([name, capabilities.media.length > 0]).toEqual([name, media !== undefined]);
    if (!capabilities.chat)
      expect([name, capabilities.caching, capabilities.reasoning, capabilities.hostedTools]).toEqual([name, 'none', false, []]);
  }
});

test('the registry is the one list of providers: nine, each named as it is listed, with a fake and a base URL', () => {
  expect(Object.keys(providerAdapters)).toEqual([...PROVIDER_NAMES]);
  expect(new Set(PROVIDER_NAMES).size).toBe(PROVIDER_NAMES.length);
  expect(new Set(listModels().map((m) => m.provider)).size).toBe(9);
  for (const name of PROVIDER_NAMES) {
    expect(providerAdapters[name].name).toBe(name);
    expect(typeof sandboxHandlers[name]).toBe('function');
    expect(providerAdapters[name].defaultBaseUrl).toMatch(/^(https:\/\/|local:)/);
  }
});
