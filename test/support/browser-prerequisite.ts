import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
/** A browser test launches Chromium through test/web/support/browser.ts. */
const LAUNCHES_BROWSER = /\blaunchBrowser\b/;

/** The test files among `paths` that drive Chromium. */
export function browserTests(paths: readonly string[]): string[] {
  return paths.filter((p) => LAUNCHES_BROWSER.test(fs.readFileSync(p, 'utf8')));
}

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Why the browser tests of this run cannot start, as one message that says how to fix it; null when there are
 * none in the run or the Chromium they use is there. Without this, each of their tests waits out its timeout.
 */
export function missingChromium(executable: string, tests: readonly string[]): string | null {
  if (tests.length === 0 || isExecutableFile(executable)) return null;
  const files = tests.map((t) => path.relative(ROOT, t));
  return [
    `The browser tests need Chromium, and there is no executable at ${executable}.`,
    `  Install Debian's Chromium:  sudo apt-get install chromium`,
    `  or set CHROMIUM_PATH to a Chromium binary,`,
    `  or run the other tests:     npm test -- --testPathIgnorePatterns ${files.map((f) => path.basename(f)).join(' ')}`,
    `Browser tests in this run: ${files.join(', ')}`,
  ].join('\n');
}
