import fs from 'node:fs';
import v8 from 'node:v8';

// Preloaded (`node --require`) into the service by `npm run bench:idle-memory`: on SIGUSR2 it writes to
// MODULE_CENSUS_FILE which modules are loaded (require.cache, counted per package) and how the heap is used.
// It loads nothing itself beyond node's built-ins, so it does not change what it counts.

export interface ModuleCensus {
  modules: number;
  /** Loaded files per package: `typeorm`, `@aws-sdk/client-s3`; the service's own files are `(service)`. */
  packages: Record<string, number>;
  memory: NodeJS.MemoryUsage;
  /** Committed bytes of each V8 heap space (new_space is the young generation). */
  heapSpaces: Record<string, number>;
}

/** The package a loaded file belongs to: the last `node_modules/<name>` (or `<@scope/name>`) of its path. */
export function packageOf(file: string): string {
  const at = file.lastIndexOf('/node_modules/');
  if (at < 0) return '(service)';
  const parts = file.slice(at + '/node_modules/'.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

function census(): ModuleCensus {
  // With `--expose-gc` (IDLE_NODE_ARGS) the heap figures are of live objects only: a full collection first.
  (globalThis as { gc?: () => void }).gc?.();
  const files = Object.keys(require.cache);
  const packages: Record<string, number> = {};
  for (const f of files) {
    const p = packageOf(f);
    packages[p] = (packages[p] ?? 0) + 1;
  }
  const heapSpaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
  return { modules: files.length, packages, memory: process.memoryUsage(), heapSpaces };
}

const target = process.env.MODULE_CENSUS_FILE;
if (target) {
  process.on('SIGUSR2', () => {
    fs.writeFileSync(target, JSON.stringify(census()));
  });
}
