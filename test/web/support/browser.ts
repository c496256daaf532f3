import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { randomIp } from '../../api/harness';
import { chromiumPath } from './chromium-path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const WEB_SRC = path.join(ROOT, 'web');
const WEB_DIST = path.join(ROOT, 'dist', 'web');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'web');
export const CHROMIUM = chromiumPath();

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds the dashboard (vite) when dist/web is missing or older than web/; one build at a time across test files. */
export function ensureWebBuild(): void {
  const index = path.join(WEB_DIST, 'index.html');
  const fresh = () => fs.existsSync(index) && fs.statSync(index).mtimeMs >= newestMtime(WEB_SRC);
  if (fresh()) return;
  const lock = path.join(ROOT, 'dist', '.web-build.lock');
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error('timed out waiting for another web build');
      execFileSync('sleep', ['0.5']);
    }
  }
  try {
    if (!fresh())
      execFileSync(
        process.execPath,
        [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.mts', '--logLevel', 'error'],
        { cwd: ROOT, stdio: 'inherit' },
      );
  } finally {
    fs.rmdirSync(lock);
  }
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations, except the browser's own note on an expected 4xx answer. */
  errors: string[];
}

/**
 * A fresh browser profile (own cookies and storage) on the dashboard, from its own client address so the per-IP
 * sign-in limits of one test do not reach another. Phone-sized when asked.
 */
export async function openDashboard(browser: Browser, baseUrl: string, options: { phone?: boolean } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: options.phone ? { width: 390, height: 844 } : { width: 1280, height: 860 },
    extraHTTPHeaders: { 'X-Forwarded-For': randomIp() },
    locale: 'en-GB',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    // Chromium logs every non-2xx fetch; a wrong password (401), a key over its budget (402) or a limit (429) is the page working as designed.
    if (/^Failed to load resource: the server responded with a status of (400|401|402|403|404|409|429)/.test(text)) return;
    errors.push(text);
  });
  return { context, page, errors };
}

/** Form controls on the page without an accessible name (a <label>, aria-label or aria-labelledby). */
export async function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.type !== 'hidden' && el.labels.length === 0 && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
    .map((el) => el.outerHTML)`);
}

/**
 * Saves a full-page screenshot as a test artifact, after checking that every form control on it is labelled. (The
 * README's pictures come from `npm run docs:screenshots`, not from the tests.)
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  expect(await unlabelledControls(page)).toEqual([]);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
