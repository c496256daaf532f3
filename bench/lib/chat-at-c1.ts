import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Child, freePort } from './child';
import { runLoad } from './http-load';
import { serviceEnv } from './service-fixture';
import { percentile } from './stats';

const run = promisify(execFile);

/** The service's c=1 chat latency against one database, as a client measures it. */
export interface ChatTiming {
  p50: number;
  p95: number;
  ok: number;
  failed: number;
}

/**
 * Starts the mock upstream and `node dist/src/main.js` on `databaseUrl`, gives `userId` a key through the operator
 * CLI, and times `requests` sync /v1/chat/completions at concurrency 1 after a warm-up; then stops both.
 */
export async function chatAtC1(root: string, databaseUrl: string, userId: number, requests: number): Promise<ChatTiming> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nebula-growth-'));
  const mock = Child.start('mock', process.execPath, ['dist/bench/mock-upstream.js'], { env: { PATH: process.env.PATH }, cwd: root });
  let service: Child | undefined;
  try {
    const mockUrl = (await mock.waitForOutput(/\{"url":"([^"]+)"\}/, 10_000))[1];
    const port = await freePort();
    const env = serviceEnv(process.env, { port, dataDir, databaseUrl, mockUrl });
    const created = await run(process.execPath, ['dist/src/cli.js', 'key:create', '--user', String(userId), '--name', 'growth'], {
      cwd: root,
      env,
      timeout: 60_000,
    });
    const key = (JSON.parse(created.stdout) as { key: string }).key;
    service = Child.start('service', process.execPath, ['dist/src/main.js'], { env, cwd: root });
    await service.waitForHttp(`http://127.0.0.1:${port}/health`, 60_000, 200);
    const target = { name: 'service', url: `http://127.0.0.1:${port}/v1/chat/completions`, headers: { authorization: `Bearer ${key}` } };
    await runLoad(target, { concurrency: 1, maxRequests: Math.min(300, requests), maxMs: 60_000, stream: false });
    const measured = await runLoad(target, { concurrency: 1, maxRequests: requests, maxMs: 120_000, stream: false });
    const ms = measured.outcomes.filter((o) => o.ok).map((o) => o.totalMs);
    ms.sort((a, b) => a - b);
    return { p50: percentile(ms, 50), p95: percentile(ms, 95), ok: measured.ok, failed: measured.failed };
  } finally {
    await service?.stop();
    await mock.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
