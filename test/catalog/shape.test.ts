import { listModels, MODELS } from '../../src/core/catalog';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';

// The one check of the catalog's counts (every other test reads them from the fixture).

test('the catalog has the shape of the fixture: models, providers, categories, Starter tier', () => {
  expect(MODELS).toHaveLength(CATALOG_SHAPE.models);
  expect(new Set(MODELS.map((m) => m.slug)).size).toBe(CATALOG_SHAPE.models);
  expect(new Set(MODELS.map((m) => m.provider)).size).toBe(CATALOG_SHAPE.providers);
  const byCategory = Object.fromEntries(
    Object.keys(CATALOG_SHAPE.categories).map((c) => [c, MODELS.filter((m) => m.category === c).length]),
  );
  expect(byCategory).toEqual(CATALOG_SHAPE.categories);
  expect(MODELS.filter((m) => m.minPlan === 'free')).toHaveLength(CATALOG_SHAPE.starter);
});

test('every catalog model is in service today: none is listed as retired', () => {
  expect(listModels()).toHaveLength(CATALOG_SHAPE.models);
});
