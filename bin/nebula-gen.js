#!/usr/bin/env node
// The operator CLI (`nebula-gen <command>`; in a checkout `npx nebula-gen <command>` or `npm run -s cli -- <command>`):
// runs the compiled build and never rebuilds it; only when there is none yet, a checkout with the compiler builds
// once first (its output on stderr, so stdout stays pure JSON).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const compiled = path.join(__dirname, '..', 'dist', 'src', 'cli.js');
if (!fs.existsSync(compiled)) {
  const built = spawnSync(process.execPath, [path.join(__dirname, 'ensure-build.js')], { stdio: ['ignore', process.stderr, process.stderr] });
  // ensure-build.js has said why when it failed (no compiler in a production install: build first).
  if (built.status !== 0) process.exit(built.status ?? 2);
  if (!fs.existsSync(compiled)) {
    process.stderr.write('nebula-gen: no build found (dist/src/cli.js); run `npm run build` first\n');
    process.exit(2);
  }
}
require(compiled);
