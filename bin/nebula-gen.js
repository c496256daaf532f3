#!/usr/bin/env node
// The operator CLI (`nebula-gen <command>`, or `npm run cli -- <command>`): runs the compiled build, never rebuilds.
const fs = require('node:fs');
const path = require('node:path');

const compiled = path.join(__dirname, '..', 'dist', 'src', 'cli.js');
if (!fs.existsSync(compiled)) {
  process.stderr.write('nebula-gen: no build found (dist/src/cli.js); run `npm run build` first\n');
  process.exit(2);
}
require(compiled);
