#!/usr/bin/env node
// Before `npm start` / `npm run cli`: `--fresh` rebuilds whenever the compiler is installed (a development checkout)
// and otherwise uses the existing build (a production install has no compiler); without it, builds only when
// there is no build yet. Build output goes to stderr, so the CLI's stdout stays pure JSON.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const built = fs.existsSync(path.join(root, 'dist', 'src', 'main.js')) && fs.existsSync(path.join(root, 'dist', 'src', 'cli.js'));
let compilerInstalled = true;
try {
  require.resolve('@swc/cli/package.json', { paths: [root] });
} catch {
  compilerInstalled = false;
}
const fresh = process.argv.includes('--fresh');
if (built && !(fresh && compilerInstalled)) process.exit(0);
if (!compilerInstalled) {
  process.stderr.write('no build found (dist/) and no compiler installed: run `npm ci` (with dev dependencies) and `npm run build`\n');
  process.exit(2);
}
const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
process.exit(r.status ?? 1);
