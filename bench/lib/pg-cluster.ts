import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { asServerUser, binDir, ensureServerUser } from '../../test/support/own-postgres';
import { freePort } from './child';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of the bench's own, run by `pg_ctl` as an operator runs one (never the machine's server):
 * initdb in a temporary directory, a free port on 127.0.0.1, no Unix socket.
 */
export class PgCluster {
  private constructor(
    private readonly pgCtl: string,
    private readonly dataDir: string,
    readonly port: number,
  ) {}

  private get logFile(): string {
    return path.join(this.dataDir, 'server.log');
  }

  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async start(): Promise<PgCluster> {
    const bin = await binDir();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-pg-restarts-'));
    if (process.getuid?.() === 0) {
      ensureServerUser();
      await run('chown', ['postgres:postgres', dataDir]);
    }
    const [initdb, initArgs] = asServerUser(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8']);
    await run(initdb, initArgs);
    const cluster = new PgCluster(path.join(bin, 'pg_ctl'), dataDir, await freePort());
    const options = `-p ${cluster.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200`;
    await cluster.ctl(['start', '-w', '-t', '60', '-l', cluster.logFile, '-o', options]);
    return cluster;
  }

  /** `pg_ctl -m immediate restart`: every session is cut without a checkpoint, crash recovery runs on start. */
  async restartImmediate(): Promise<void> {
    await this.ctl(['restart', '-m', 'immediate', '-w', '-t', '60', '-l', this.logFile]);
  }

  async stop(): Promise<void> {
    await this.ctl(['stop', '-m', 'fast', '-w', '-t', '30']).catch(() => this.ctl(['stop', '-m', 'immediate']));
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  private async ctl(args: string[]): Promise<void> {
    const [file, fullArgs] = asServerUser(this.pgCtl, ['-D', this.dataDir, ...args]);
    // With -l the server writes to its log file, not to our pipes: the call returns when pg_ctl does.
    await run(file, fullArgs, { timeout: 90_000 });
  }
}
