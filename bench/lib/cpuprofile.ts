import fs from 'node:fs';

// Reads a V8 .cpuprofile (node --cpu-prof) and adds up self time by function and by file or package, so a
// profile can be read without a flame-graph viewer.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  byFunction: SelfTime[];
  byFile: SelfTime[];
  byPackage: SelfTime[];
}

/** `node_modules/<pkg>` (scoped too), `node:<internal>`, or the project path. */
function packageOf(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return url.split('/')[0];
  const at = url.lastIndexOf('node_modules/');
  if (at >= 0) {
    const rest = url.slice(at + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const dist = url.indexOf('/dist/');
  return dist >= 0
    ? url
        .slice(dist + 1)
        .split('/')
        .slice(0, 3)
        .join('/')
    : url;
}

function shortFile(url: string): string {
  const at = url.lastIndexOf('node_modules/');
  if (at >= 0) return url.slice(at + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url || '(native)';
}

function ranked(totals: Map<string, number>, totalMs: number, top: number): SelfTime[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ name, ms, share: ms / totalMs }));
}

export function summarizeProfile(file: string, top = 40): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)!.callFrame;
    const ms = us / 1000;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    totalMs += ms;
    const fn = `${frame.functionName || '(anonymous)'} ${shortFile(frame.url)}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
    byFile.set(shortFile(frame.url), (byFile.get(shortFile(frame.url)) ?? 0) + ms);
    const pkg = frame.url ? packageOf(frame.url) : frame.functionName;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
  }
  return {
    totalMs,
    idleMs,
    byFunction: ranked(byFunction, totalMs, top),
    byFile: ranked(byFile, totalMs, top),
    byPackage: ranked(byPackage, totalMs, top),
  };
}

export function renderProfile(s: ProfileSummary, perRequestOf?: number): string {
  const fmt = (rows: SelfTime[]) =>
    rows
      .map(
        (r) =>
          `${(r.share * 100).toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms` +
          (perRequestOf ? `  ${((r.ms * 1000) / perRequestOf).toFixed(1).padStart(6)} µs/req` : '') +
          `  ${r.name}`,
      )
      .join('\n');
  return [
    `busy ${s.totalMs.toFixed(0)} ms, idle ${s.idleMs.toFixed(0)} ms` +
      (perRequestOf ? `, ${((s.totalMs * 1000) / perRequestOf).toFixed(0)} µs busy per request` : ''),
    '',
    '## by package',
    fmt(s.byPackage),
    '',
    '## by file',
    fmt(s.byFile),
    '',
    '## by function',
    fmt(s.byFunction),
  ].join('\n');
}

if (require.main === module) {
  const [file, requests] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/lib/cpuprofile.js <file.cpuprofile> [requests]\n');
    process.exit(2);
  }
  process.stdout.write(`${renderProfile(summarizeProfile(file), requests ? Number(requests) : undefined)}\n`);
}
