import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Compiles src/ into dist/ (swc only, about a second) so the tests run the same files `npm start` runs. */
export function buildOnce(): void {
  execFileSync(path.join(ROOT, 'node_modules/.bin/swc'), ['src', 'migrations', '-d', 'dist', '--config-file', '.swcrc', '--quiet'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

/** `node dist/src/main.js` as its own process, with its log lines (JSON: stdout is not a terminal). */
export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  lines: string[];
  exited: Promise<number | null>;
}

export async function startServiceProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/src/main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buffered = '';
  const onData = (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts.filter(Boolean));
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listening = lines.map((l) => /listening on (http:\/\/\S+?)"/.exec(l)).find(Boolean);
    if (listening) return { child, baseUrl: listening[1], lines, exited };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start:\n${lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(require('node:os').tmpdir(), prefix));
}
