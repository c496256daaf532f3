import { findModel } from '../../src/core/catalog/catalog';
import { createDataSource } from '../../src/db/data-source';
import { createEmptyDatabase, type EmptyDatabase } from '../support/databases';

let empty: EmptyDatabase;
let url: string;

beforeAll(async () => {
  empty = await createEmptyDatabase('ng_migrate');
  url = empty.url;
});
afterAll(() => empty.drop());

test('migrations run up on an empty database, leave no pending schema change, seed the plans, and run down', async () => {
  const ds = createDataSource(url, { poolSize: 2 });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    expect(applied.length).toBeGreaterThanOrEqual(2);
    expect(await ds.showMigrations()).toBe(false);

    const pending = await ds.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);

    const plans = await ds.query('SELECT slug, level, rate_limit_hourly, rate_limit_daily, retention_days FROM plans ORDER BY level');
    expect(plans).toEqual([
      { slug: 'free', level: 0, rate_limit_hourly: 20, rate_limit_daily: 150, retention_days: 7 },
      { slug: 'basic', level: 1, rate_limit_hourly: 30, rate_limit_daily: 200, retention_days: 30 },
      { slug: 'pro', level: 2, rate_limit_hourly: 60, rate_limit_daily: 500, retention_days: 90 },
      { slug: 'vip', level: 3, rate_limit_hourly: 100, rate_limit_daily: 1000, retention_days: 90 },
      { slug: 'elite', level: 4, rate_limit_hourly: 0, rate_limit_daily: 0, retention_days: null },
    ]);
    const system = await ds.query('SELECT count(*)::int AS n FROM assistants WHERE is_system');
    expect(system[0].n).toBeGreaterThan(0);
    const seededModels: { model_slug: string }[] = await ds.query('SELECT model_slug FROM assistants WHERE is_system');
    expect(seededModels.map((a) => a.model_slug).filter((slug) => !findModel(slug))).toEqual([]);

    for (let i = 0; i < applied.length; i++) await ds.undoLastMigration({ transaction: 'each' });
    const left = await ds.query(
      `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations'`,
    );
    expect(left[0].n).toBe(0);
  } finally {
    await ds.destroy();
  }
});
