import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** The newest modification time of the files under `dir`. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Compiles src/ into dist/ (swc only, about a second) so the tests run the same files `npm start` runs; skipped
 * when dist/ is newer than every source, so test files in parallel workers do not rewrite a build another one is
 * running (or checking).
 */
export function buildOnce(): void {
  const built = path.join(ROOT, 'dist/src/main.js');
  if (fs.existsSync(built)) {
    const sources = Math.max(newestMtime(path.join(ROOT, 'src')), newestMtime(path.join(ROOT, 'migrations')));
    if (fs.statSync(built).mtimeMs > sources) return;
  }
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

/** The child as soon as it is spawned, before it listens (to signal it mid-start). */
export interface SpawnedService {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

export function spawnServiceProcess(env: Record<string, string>): SpawnedService {
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
  return { child, lines, exited };
}

/** Waits until a log line matches; throws when the process exits first or the time runs out. */
export async function waitForLine(p: SpawnedService, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = p.lines.map((l) => pattern.exec(l)).find(Boolean);
    if (found) return found;
    if (p.child.exitCode !== null || Date.now() > deadline) throw new Error(`no line matching ${pattern}:\n${p.lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function startServiceProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<ServiceProcess> {
  const spawned = spawnServiceProcess(env);
  const listening = await waitForLine(spawned, /listening on (https?:\/\/[^\s"]+)/, timeoutMs).catch((err: Error) => {
    throw new Error(`the service did not start: ${err.message}`);
  });
  return { ...spawned, baseUrl: listening[1] };
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(require('node:os').tmpdir(), prefix));
}
