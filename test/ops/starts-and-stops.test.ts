import fs from 'node:fs';
import path from 'node:path';
import { createEmptyDatabase, type EmptyDatabase } from '../support/databases';
import { buildOnce, ServiceProcess, spawnServiceProcess, startServiceProcess, tempDir, waitForLine } from './service-process';

// Starts and stops: instances started at the same moment on a fresh database all start (migrations and job-queue
// setup run under one advisory lock); SIGTERM at once after ready, or while still starting, drains and exits 0;
// with the embedded PostgreSQL the database stops last, after the drain.

const running: ServiceProcess[] = [];
const dirs: string[] = [];
const databases: EmptyDatabase[] = [];

/** An empty database (no template): the instances migrate it themselves. */
async function freshDatabase(): Promise<string> {
  const db = await createEmptyDatabase('ng_fresh');
  databases.push(db);
  return db.url;
}

function dir(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
}

async function start(env: Record<string, string>): Promise<ServiceProcess> {
  const p = await startServiceProcess(env, 90_000);
  running.push(p);
  return p;
}

const errorLines = (p: ServiceProcess) => p.lines.filter((l) => /"level":(50|60)/.test(l) || /^fatal/.test(l));

beforeAll(() => buildOnce());
afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const db of databases) await db.drop().catch(() => undefined);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

test('three instances started at the same moment on a fresh database all start and answer ready', async () => {
  const url = await freshDatabase();
  const three = await Promise.all([1, 2, 3].map((i) => start({ DATABASE_URL: url, DATA_DIR: dir(`ng-par${i}-`) })));
  for (const p of three) {
    expect((await fetch(`${p.baseUrl}/health/ready`)).status).toBe(200);
    expect(errorLines(p)).toEqual([]);
  }
  for (const p of three) p.child.kill('SIGTERM');
  expect(await Promise.all(three.map((p) => p.exited))).toEqual([0, 0, 0]);
}, 180_000);

test('SIGTERM right after /health/ready turns 200: drained, exit 0', async () => {
  const url = await freshDatabase();
  const p = await start({ DATABASE_URL: url, DATA_DIR: dir('ng-term-') });
  expect((await fetch(`${p.baseUrl}/health/ready`)).status).toBe(200);
  p.child.kill('SIGTERM');
  expect(await p.exited).toBe(0);
  expect(p.lines.some((l) => l.includes('shutting down: draining'))).toBe(true);
  expect(errorLines(p)).toEqual([]);
}, 120_000);

test('SIGTERM while the service still starts (migrating): the start finishes, then it drains and exits 0', async () => {
  const url = await freshDatabase();
  const p = spawnServiceProcess({ DATABASE_URL: url, DATA_DIR: dir('ng-early-') });
  running.push({ ...p, baseUrl: '' });
  await waitForLine(p, /"msg":"starting on /);
  p.child.kill('SIGTERM');
  expect(await p.exited).toBe(0);
  expect(p.lines.some((l) => l.includes('stop requested'))).toBe(true);
  expect(errorLines({ ...p, baseUrl: '' })).toEqual([]);
}, 120_000);

test('SIGTERM with the embedded PostgreSQL: drained first, the database stopped last, exit 0', async () => {
  const dataDir = dir('ng-embedded-');
  fs.chmodSync(dataDir, 0o755); // as root, the server runs as the postgres user, which must reach DATA_DIR/pg
  for (let round = 0; round < 2; round++) {
    const p = await start({ DATA_DIR: dataDir });
    expect((await fetch(`${p.baseUrl}/health/ready`)).status).toBe(200);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(errorLines(p)).toEqual([]);
    // The postmaster is gone: it removed its pid file on a clean stop.
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }
}, 240_000);
