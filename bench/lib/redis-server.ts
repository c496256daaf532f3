import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A redis-server of the bench's own on a fixed port, with a directory of its own (no persistence). */
export class RedisServer {
  private constructor(
    readonly port: number,
    private child: ChildProcess,
    private dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(port: number): Promise<RedisServer> {
    const { child, dir } = await RedisServer.spawn(port);
    return new RedisServer(port, child, dir);
  }

  /** kill -9, then a new, empty server on the same port: what a replaced Redis looks like to its clients. */
  async replace(): Promise<void> {
    await this.stop();
    const { child, dir } = await RedisServer.spawn(this.port);
    this.child = child;
    this.dir = dir;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGKILL');
      await exited;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private static async spawn(port: number): Promise<{ child: ChildProcess; dir: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-soak-redis-'));
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 10_000;
    while (!(await answers(port))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('redis-server did not start (is it installed?)');
      await new Promise((r) => setTimeout(r, 50));
    }
    return { child, dir };
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}
