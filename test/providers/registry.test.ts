import { listModels } from '../../src/core/catalog/catalog';
import { providerAdapters } from '../../src/core/providers/registry';
import { PROVIDER_NAMES } from '../../src/core/providers/types';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';

test('every catalog model resolves to an adapter with the capability its category needs', () => {
  const models = listModels();
  expect(models).toHaveLength(CATALOG_SHAPE.models);
  for (const m of models) {
    const adapter = providerAdapters[m.provider];
    expect([m.slug, adapter?.name]).toEqual([m.slug, m.provider]);
    const capability = m.category === 'text' ? adapter.chat : adapter.media;
    expect([m.slug, capability !== undefined]).toEqual([m.slug, true]);
  }
});

test('the registry is the one list of providers: nine, each with a sandbox fake and a default base URL', () => {
  expect(Object.keys(providerAdapters).sort()).toEqual([...PROVIDER_NAMES].sort());
  expect(new Set(listModels().map((m) => m.provider)).size).toBe(9);
  for (const name of PROVIDER_NAMES) {
    expect(typeof sandboxHandlers[name]).toBe('function');
    expect(providerAdapters[name].defaultBaseUrl).toMatch(/^(https:\/\/|local:)/);
  }
});
