// `npm run docs:screenshots`: the README's pictures of the dashboard (docs/img/*.png), taken from a fresh service.
// It starts the build (`node dist/src/main.js`) on a temporary data directory (the embedded PostgreSQL, every vendor
// on the sandbox), makes a VIP account with the CLI, uses it through the API as a user would (chats and images on
// current models, an API key with a budget, a refused call), spreads that activity over the last weeks so the
// charts have something to show, and lets Chromium (playwright-core, CHROMIUM_PATH or /usr/bin/chromium) photograph
// each page at 1280 x 860.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { chromium, type Page } from 'playwright-core';
import { startEmbeddedPostgres } from '../src/db/embedded';

const ROOT = path.resolve(__dirname, '..', '..');
const OUT = path.join(ROOT, 'docs', 'img');
const EMAIL = 'ann@example.com';
const PASSWORD = 'readme-screenshots';

/** The pages the README shows, by file name. */
const SHOTS: { name: string; path: string; ready(page: Page): Promise<void> }[] = [
  { name: 'overview', path: '/', ready: (p) => p.getByTestId('usage-bar').first().waitFor() },
  { name: 'playground', path: '/playground', ready: (p) => p.getByTestId('chat-assistant').first().waitFor() },
  { name: 'history', path: '/history', ready: (p) => p.getByTestId('history-item').first().waitFor() },
  { name: 'request-log', path: '/usage', ready: (p) => p.getByTestId('log-row').first().waitFor() },
  { name: 'api-keys', path: '/keys', ready: (p) => p.getByTestId('key-row').first().waitFor() },
  { name: 'models', path: '/models', ready: (p) => p.getByTestId('model-row').first().waitFor() },
  { name: 'billing', path: '/billing', ready: (p) => p.getByTestId('current-plan').waitFor() },
  { name: 'account', path: '/account', ready: (p) => p.getByTestId('session-row').first().waitFor() },
];

async function startService(dataDir: string): Promise<{ base: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const found = /listening on (https?:\/\/[^\s"]+)/.exec(seen);
      if (found) resolve(found[1]!);
    });
    child.once('exit', () => reject(new Error(`the service exited before listening:\n${seen}`)));
  });
  child.stdout.resume();
  return {
    // localhost, not 127.0.0.1: the browser keeps the Secure refresh cookie on http://localhost.
    base: base.replace('127.0.0.1', 'localhost'),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function call(base: string, token: string, method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
}

/** A month of use: chats and images on current models, a key with a budget, a call refused for its model list. */
async function seed(base: string, dataDir: string): Promise<void> {
  const cli = (...args: string[]) =>
    JSON.parse(
      execFileSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli.js'), ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, NODE_ENV: 'development' },
      }).toString(),
    ) as { id: number };
  cli('user:create', '--email', EMAIL, '--password', PASSWORD, '--plan', 'vip');
  const login = await fetch(`${base}/api/v2/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  const token = ((await login.json()) as { access_token: string }).access_token;
  await call(base, token, 'PATCH', '/api/v2/user/me', { name: 'Ann' });
  const key = (await call(base, token, 'POST', '/api/v2/keys', { name: 'ci', token_budget: 2000, budget_period: 'month' })) as {
    key: string;
  };
  const scoped = (await call(base, token, 'POST', '/api/v2/keys', { name: 'mobile app', models: ['gpt-6-luna'] })) as { key: string };
  const questions = ['Summarise the tides in two lines', 'Write a haiku about lighthouses', 'What is a neap tide?', 'Explain rip currents'];
  const chatModels = ['gpt-6-luna', 'claude-haiku-4-5', 'gemini-3.5-flash', 'deepseek-v4-flash'];
  for (let i = 0; i < 16; i++) {
    await call(base, i % 3 === 0 ? key.key : token, 'POST', '/v1/chat/completions', {
      model: chatModels[i % chatModels.length],
      messages: [{ role: 'user', content: questions[i % questions.length] }],
    });
  }
  for (const [model, prompt] of [
    ['flux-dev', 'a lighthouse at dusk'],
    ['gemini-3.1-flash-image', 'waves on black rocks, long exposure'],
    ['flux-dev', 'a harbour at dawn'],
  ]) {
    await call(base, token, 'POST', '/api/v2/generate', { model, prompt });
  }
  await call(base, scoped.key, 'POST', '/v1/chat/completions', { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }] });

  // Spread over the last four weeks (the newest stays today), as a month of use would be.
  const db = await startEmbeddedPostgres(path.join(dataDir, 'pg'));
  const client = new Client({ connectionString: db.url });
  await client.connect();
  await client.query(
    `WITH last AS (SELECT max(id) AS id FROM generations)
     UPDATE generations g SET created_at = g.created_at - ((last.id - g.id) * 26 / last.id) * interval '1 day',
            completed_at = g.completed_at - ((last.id - g.id) * 26 / last.id) * interval '1 day'
       FROM last`,
  );
  await client.end();
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-shots-'));
  // As root, the embedded PostgreSQL runs as the postgres user, which must reach the data directory.
  fs.chmodSync(dataDir, 0o755);
  const service = await startService(dataDir);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    await seed(service.base, dataDir);
    const context = await browser.newContext({ baseURL: service.base, viewport: { width: 1280, height: 860 }, locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Email or phone').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // A conversation in the playground, sent from the page like a user would.
    await page.goto('/playground');
    await page.getByLabel('Message').fill('Write a short poem about the sea, with a **bold** line');
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: /^Done: / })
      .waitFor();
    fs.mkdirSync(OUT, { recursive: true });
    for (const shot of SHOTS) {
      await page.goto(shot.path);
      await shot.ready(page);
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: path.join(OUT, `${shot.name}.png`), fullPage: true });
      process.stdout.write(`wrote docs/img/${shot.name}.png\n`);
    }
  } finally {
    await browser.close();
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
