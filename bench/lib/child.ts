import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const OUTPUT_KEEP = 8_000;

/** A process under test: its output is kept (tail only) for error messages, its memory is readable from /proc. */
export class Child {
  private output = '';
  private exitCode: number | null | undefined;
  private exitSignal: NodeJS.Signals | null = null;
  readonly exited: Promise<void>;

  private constructor(
    readonly name: string,
    private readonly proc: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-OUTPUT_KEEP);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    this.exited = new Promise((resolve) =>
      proc.once('exit', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        resolve();
      }),
    );
  }

  static start(name: string, command: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string }): Child {
    const proc = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    return new Child(name, proc);
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** How it ended, for error messages: `code 1`, `signal SIGKILL`, or `running`. */
  get exitStatus(): string {
    if (this.running) return 'running';
    return this.exitSignal ? `signal ${this.exitSignal}` : `code ${this.exitCode}`;
  }

  tail(): string {
    return this.output.slice(-2000);
  }

  /** Waits for a line of output matching `pattern` (e.g. the mock's `{"url":...}`). */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`${this.name}: no ${pattern} within ${timeoutMs} ms\n${this.tail()}`)), timeoutMs);
      const check = () => {
        const m = this.output.match(pattern);
        if (m) done(undefined, m);
      };
      const onExit = () => done(new Error(`${this.name} exited early (${this.exitStatus})\n${this.tail()}`));
      const done = (err?: Error, m?: RegExpMatchArray) => {
        clearTimeout(timer);
        this.proc.stdout?.off('data', check);
        this.proc.off('exit', onExit);
        if (err) reject(err);
        else resolve(m!);
      };
      this.proc.stdout?.on('data', check);
      this.proc.once('exit', onExit);
      check();
    });
  }

  /** Polls `url` until it answers `expectStatus` (any HTTP answer when omitted). */
  async waitForHttp(url: string, timeoutMs: number, expectStatus?: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.name} exited early (${this.exitStatus})\n${this.tail()}`);
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
        await res.arrayBuffer();
        if (expectStatus === undefined || res.status === expectStatus) return;
        last = `HTTP ${res.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${this.name} not ready at ${url} within ${timeoutMs} ms (${last})\n${this.tail()}`);
  }

  /** A field of /proc/<pid>/status in kB (VmRSS = now, VmHWM = peak since start), or NaN. */
  memoryKb(field: 'VmRSS' | 'VmHWM'): number {
    try {
      const status = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Number(m[1]) : NaN;
    } catch {
      return NaN;
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`. Only this child's own pid is signalled. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.running && this.proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Samples VmRSS of some children every `everyMs` and keeps each one's maximum. */
export class RssSampler {
  private readonly peaks = new Map<Child, number>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly children: Child[]) {}

  start(everyMs = 250): void {
    this.timer = setInterval(() => {
      for (const c of this.children) {
        const kb = c.memoryKb('VmRSS');
        if (kb > (this.peaks.get(c) ?? 0)) this.peaks.set(c, kb);
      }
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  peakKb(child: Child): number {
    return this.peaks.get(child) ?? NaN;
  }
}

/** CPU time (user + system) a process has used so far, in ms; NaN when it is gone. Linux USER_HZ is 100. */
export function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}
