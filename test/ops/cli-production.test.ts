import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { verifyPassword } from '../../src/core/accounts/passwords';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { buildOnce, tempDir } from './service-process';
import { CATALOG_SHAPE } from '../fixtures/catalog-shape';

// The operator CLI: `npm run cli`, `npx nebula-gen` and `npm run -s cli` answer pure JSON on stdout without
// rebuilding, and the `bin` entry runs from a production-style install (a build, then `npm ci --omit=dev`: no
// compiler, no sources). The project's .npmrc (json=true) is what keeps npm's own banner off stdout for `npm run`.

const run = promisify(execFile);
const root = path.join(__dirname, '../..');
let db: TestDatabase;
let prod: string;

beforeAll(async () => {
  buildOnce();
  db = await createTestDatabase();
  prod = tempDir('ng-prod-');
  for (const f of ['package.json', 'package-lock.json', '.npmrc']) fs.copyFileSync(path.join(root, f), path.join(prod, f));
  fs.cpSync(path.join(root, 'bin'), path.join(prod, 'bin'), { recursive: true });
  fs.cpSync(path.join(root, 'dist/src'), path.join(prod, 'dist/src'), { recursive: true });
  fs.cpSync(path.join(root, 'dist/migrations'), path.join(prod, 'dist/migrations'), { recursive: true });
  fs.cpSync(path.join(root, 'locales'), path.join(prod, 'locales'), { recursive: true });
  await run(
    'npm',
    ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--json=false', '--loglevel=error'],
    {
      cwd: prod,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
}, 240_000);
afterAll(async () => {
  await db?.drop();
  if (prod) fs.rmSync(prod, { recursive: true, force: true });
});

test('`npm run cli -- models:list` (and npx, and npm run -s) print pure JSON on stdout and do not rebuild', async () => {
  const compiled = path.join(root, 'dist/src/cli.js');
  const before = fs.statSync(compiled).mtimeMs;
  for (const args of [
    ['npm', 'run', 'cli', '--', 'models:list'],
    ['npx', 'nebula-gen', 'models:list'],
    ['npm', 'run', '-s', 'cli', '--', 'models:list'],
  ]) {
    const { stdout } = await run(args[0], args.slice(1), { cwd: root, maxBuffer: 8 * 1024 * 1024 });
    expect(JSON.parse(stdout).total).toBe(CATALOG_SHAPE.models);
  }
  expect(fs.statSync(compiled).mtimeMs).toBe(before);
  // `npm run cli -- --help` is usage and success, not an npm error.
  const help = await run('npm', ['run', 'cli', '--', '--help'], { cwd: root });
  expect(help.stdout).toMatch(/^usage: nebula-gen <command>/m);
  expect(help.stderr).not.toMatch(/npm (ERR|error)/);
}, 60_000);

test('the bin entry runs from a production install, with --password-stdin', async () => {
  expect(fs.existsSync(path.join(prod, 'node_modules/@swc/cli'))).toBe(false);
  const env = {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: db.url,
    NODE_ENV: 'production',
    JWT_SECRET: 'x'.repeat(40),
    API_KEY_PEPPER: 'pepper',
    DATA_DIR: path.join(prod, 'data'),
  };
  const models = await run(path.join(prod, 'bin/nebula-gen.js'), ['models:list'], { cwd: prod, env, maxBuffer: 8 * 1024 * 1024 });
  expect(JSON.parse(models.stdout).total).toBe(CATALOG_SHAPE.models);

  const child = spawn(
    path.join(prod, 'bin/nebula-gen.js'),
    ['user:create', '--email', 'ops@example.com', '--password-stdin', '--plan', 'vip'],
    { cwd: prod, env },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end('from-stdin-secret\n');
  const code = await new Promise((r) => child.once('exit', r));
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const user = JSON.parse(stdout);
  expect(user).toMatchObject({ email: 'ops@example.com', plan: 'vip', auth_methods: { email: true } });
  const [row] = await db.dataSource.query(`SELECT password_hash FROM users WHERE id = $1`, [user.id]);
  expect(await verifyPassword(row.password_hash, 'from-stdin-secret')).toBe(true);
}, 60_000);
