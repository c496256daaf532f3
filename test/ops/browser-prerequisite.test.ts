// `npm test` without Chromium: a run with browser tests stops at once with one message saying how to install it;
// a run without them is not affected. The missing Chromium is simulated with CHROMIUM_PATH.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { browserTests, missingChromium } from '../support/browser-prerequisite';

const run = promisify(execFile);
const root = path.join(__dirname, '../..');
const dashboard = path.join(root, 'test/web/dashboard.test.ts');
const unitTest = path.join(root, 'test/web/unit/identifier.test.ts');
const MISSING = '/nonexistent/chromium';

async function jest(...files: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CHROMIUM_PATH: MISSING };
  delete env.JEST_WORKER_ID;
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(root, 'node_modules/jest/bin/jest.js'), '--ci', '--maxWorkers=1', ...files],
      {
        cwd: root,
        env,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('browser tests are the files that launch Chromium', () => {
  expect(browserTests([dashboard, unitTest, path.join(root, 'test/cli/cli.test.ts')])).toEqual([dashboard]);
});

test('the message names the path, how to install Chromium and the browser tests of the run; none when it can run', () => {
  const message = missingChromium(MISSING, [dashboard])!;
  expect(message).toContain(`no executable at ${MISSING}`);
  expect(message).toContain('apt-get install chromium');
  expect(message).toContain('CHROMIUM_PATH');
  expect(message).toContain('test/web/dashboard.test.ts');
  expect(missingChromium(MISSING, [])).toBeNull();
  expect(missingChromium(process.execPath, [dashboard])).toBeNull();
  // A file that is there but cannot be executed does not count.
  const plain = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ng-chromium-')), 'chromium');
  fs.writeFileSync(plain, '', { mode: 0o644 });
  expect(missingChromium(plain, [dashboard])).toContain(`no executable at ${plain}`);
});

test('a run with a browser test stops before any test with the one message; a run without one is not affected', async () => {
  const stopped = await jest(dashboard, unitTest);
  expect(stopped.code).toBe(1);
  expect(stopped.stderr.match(/apt-get install chromium/g)).toHaveLength(1);
  // Nothing ran: no suite started, no test summary.
  expect(stopped.stderr).not.toMatch(/PASS|FAIL|Tests:/);

  const unaffected = await jest(unitTest);
  expect(unaffected.code).toBe(0);
  expect(unaffected.stderr).toMatch(/Tests:\s+\d+ passed/);
  expect(unaffected.stderr).not.toContain('chromium');
}, 120_000);
