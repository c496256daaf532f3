import crypto from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { migrations } from '../../migrations';
import { createDataSource } from '../../src/db/data-source';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Name of the migrated template: changes whenever the list of migrations changes. */
function templateName(): string {
  const hash = crypto
    .createHash('sha256')
    .update(migrations.map((m) => m.name).join(','))
    .digest('hex')
    .slice(0, 12);
  return `ng_template_${hash}`;
}

async function ensureTemplate(adminUrl: string): Promise<string> {
  const name = templateName();
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // One process builds the template; the others wait on the same advisory lock.
    await admin.query('SELECT pg_advisory_lock(727001)');
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name}"`);
      const ds = createDataSource(withDatabase(adminUrl, name), { poolSize: 2 });
      await ds.initialize();
      try {
        await ds.runMigrations();
      } finally {
        await ds.destroy();
      }
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock(727001)').catch(() => undefined);
    await admin.end();
  }
  return name;
}

export interface TestDatabase {
  url: string;
  dataSource: DataSource;
  drop(): Promise<void>;
}

/** A fresh, migrated database of its own for one test file, copied from a migrated template. */
export async function createTestDatabase(adminUrl = process.env.DATABASE_URL): Promise<TestDatabase> {
  if (!adminUrl) throw new Error('DATABASE_URL is not set (the jest global setup provides one)');
  const template = await ensureTemplate(adminUrl);
  const name = `ng_test_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const dataSource = createDataSource(url, { poolSize: 30 });
  await dataSource.initialize();
  return {
    url,
    dataSource,
    drop: async () => {
      await dataSource.destroy();
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A second connection pool on a database another harness made (a second instance of the service); drop() only closes it. */
export async function attachTestDatabase(shared: TestDatabase): Promise<TestDatabase> {
  const dataSource = createDataSource(shared.url, { poolSize: 30 });
  await dataSource.initialize();
  return { url: shared.url, dataSource, drop: () => dataSource.destroy() };
}

export interface EmptyDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Runs one statement on its own connection to `adminUrl`. */
export async function asAdmin(adminUrl: string, sql: string): Promise<void> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** An empty database, not migrated (no template), for tests of the migrations and of a first start. */
export async function createEmptyDatabase(prefix: string, adminUrl = process.env.DATABASE_URL): Promise<EmptyDatabase> {
  if (!adminUrl) throw new Error('DATABASE_URL is not set (the jest global setup provides one)');
  const name = `${prefix}_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  await asAdmin(adminUrl, `CREATE DATABASE "${name}"`);
  return { url: withDatabase(adminUrl, name), drop: () => asAdmin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
