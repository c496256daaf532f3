// `npm run web:weight`: the JavaScript the sign-in page loads on a first visit, in bytes as the service sends it
// (raw, gzip and br, negotiated by Accept-Encoding like a browser's). The app runs in memory on the current build
// of dist/web; Chromium opens /sign-in signed out and tells which scripts it fetched.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { chromium } from 'playwright-core';
import { createApiApp } from '../src/api/app';
import { loadConfig } from '../src/config';
import type { Services } from '../src/services';

function bytesAs(url: string, encoding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'Accept-Encoding': encoding } }, (res) => {
        let size = 0;
        res.on('data', (chunk: Buffer) => (size += chunk.length));
        res.on('end', () => resolve(size));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-weight-'));
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), API_KEY_PEPPER: 'web-weight' });
  // The page's own API calls fail here (no database); the scripts it loads do not depend on them.
  const services = { config, log: pino({ level: 'silent' }), readiness: { phase: 'ready' } } as unknown as Services;
  const server = http.createServer(createApiApp(services).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox'],
  });
  try {
    const page = await browser.newPage();
    const scripts = new Set<string>();
    page.on('response', (res) => {
      if (res.request().resourceType() === 'script' && res.url().startsWith(origin)) scripts.add(res.url());
    });
    await page.goto(`${origin}/sign-in`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const files: { file: string; raw: number; gzip: number; br: number }[] = [];
    for (const url of [...scripts].sort()) {
      files.push({
        file: new URL(url).pathname,
        raw: await bytesAs(url, 'identity'),
        gzip: await bytesAs(url, 'gzip'),
        br: await bytesAs(url, 'br'),
      });
    }
    const sum = (k: 'raw' | 'gzip' | 'br') => files.reduce((s, f) => s + f[k], 0);
    console.log(JSON.stringify({ page: '/sign-in', files, total: { raw: sum('raw'), gzip: sum('gzip'), br: sum('br') } }, null, 2));
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
