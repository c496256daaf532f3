import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A redis-server of the test's own (never the machine's), which the test may freeze with SIGSTOP. */
export interface OwnRedis {
  url: string;
  port: number;
  freeze(): void;
  thaw(): void;
  /** kill -9, then a new empty server on the same port (no persistence: nothing survives). */
  restart(): Promise<void>;
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

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write('PING\r\n');
    });
    sock.once('data', (d) => {
      sock.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    sock.once('error', () => resolve(false));
  });
}

interface Server {
  child: ChildProcess;
  /** Its own directory: a replication sync writes an RDB file there, which no other server may ever load. */
  dir: string;
}

async function spawnOn(port: number): Promise<Server> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-redis-'));
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error('redis-server did not start (is it installed? apt-get install -y redis-server)');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, dir };
}

async function kill({ child, dir }: Server): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let server = await spawnOn(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    freeze: () => server.child.kill('SIGSTOP'),
    thaw: () => server.child.kill('SIGCONT'),
    restart: async () => {
      await kill(server);
      server = await spawnOn(port);
    },
    stop: () => kill(server),
  };
}
