import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { createApiApp } from '../../src/api/app';
import { loadConfig } from '../../src/config';
import { hashPassword } from '../../src/core/accounts/passwords';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import type { PlanSlug } from '../../src/core/catalog/types';
import { createDataSource } from '../../src/db/data-source';
import { startWorkers } from '../../src/jobs/workers';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { SandboxHandlers, SandboxServer, startSandbox } from '../../src/sandbox/server';
import { createServices, Services } from '../../src/services';

// One service instance in this test process: its own pool (possibly through a proxy), data directory, sandbox
// upstream and HTTP server, on a shared test database. Several make a cluster.

export interface Instance {
  services: Services;
  baseUrl: string;
  dataDir: string;
  logs: string[];
  sandbox: SandboxServer;
  /** Client connections the HTTP server holds open now. */
  connections(): Promise<number>;
  close(): Promise<void>;
}

export interface InstanceOptions {
  databaseUrl: string;
  env?: Record<string, string>;
  handlers?: SandboxHandlers;
  /** Start pg-boss and the job workers. */
  workers?: boolean;
  dataDir?: string;
}

export async function startInstance(options: InstanceOptions): Promise<Instance> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ng-inst-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    JWT_SECRET: 'test-jwt-secret-that-is-long-enough-0123456789',
    API_KEY_PEPPER: 'test-pepper',
    LOG_LEVEL: 'info',
    ...options.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const log = pino({ level: 'debug' }, sink);
  const ds: DataSource = createDataSource(options.databaseUrl, { poolSize: 10 });
  await ds.initialize();
  const sandbox = await startSandbox({ ...sandboxHandlers, ...options.handlers });
  const services = createServices(config, log, ds, {
    databaseUrl: options.databaseUrl,
    sandboxMount: sandbox.mountUrl,
    allowPrivateHosts: [new URL(sandbox.origin).host],
  });
  if (options.workers) {
    await services.boss.start();
    await startWorkers(services.boss, services);
  }
  services.readiness.addCheck('job_queue', async () => undefined);
  services.readiness.set('ready');
  const server = http.createServer(createApiApp(services).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    services,
    baseUrl,
    dataDir,
    logs,
    sandbox,
    connections: () => new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.close();
      await sandbox.close();
      await ds.destroy().catch(() => undefined);
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A user with a web access token (JWT: every plan may use both surfaces). */
export async function accountWithToken(
  ds: DataSource,
  instance: Instance,
  plan: PlanSlug = 'vip',
  planTokens = 500,
): Promise<{ userId: number; token: string }> {
  const email = `ops-${crypto.randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${crypto.randomBytes(6).toString('hex')}`;
  const user = await createUser(ds, new PlanDirectory(ds), {
    name: 'Ops',
    email,
    passwordHash: await hashPassword(password),
    plan,
    planTokens,
    bonusTokens: 0,
  });
  const res = await fetch(`${instance.baseUrl}/api/v2/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${crypto.randomInt(255)}.${crypto.randomInt(1, 255)}` },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return { userId: user.id, token: ((await res.json()) as { access_token: string }).access_token };
}

export interface SseEvent {
  event: string;
  data: any;
}

function parseFrame(frame: string): SseEvent {
  const event = /^event: (.*)$/m.exec(frame)?.[1] ?? 'message';
  const data = /^data: (.*)$/m.exec(frame)?.[1] ?? '';
  let parsed: unknown = data;
  try {
    parsed = JSON.parse(data);
  } catch {
    // [DONE] and the like
  }
  return { event, data: parsed };
}

/** Reads a server-sent-events response to its end; returns the events by name with their parsed data. */
export async function readSse(res: Response): Promise<SseEvent[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((f) => f.trim())
    .map(parseFrame);
}

export interface WatchedSse {
  /** Resolves once an event of this name has arrived (a test's sign that the answer is under way). */
  seen(event: string): Promise<void>;
  /** Every event, once the response has ended. */
  events: Promise<SseEvent[]>;
}

/** Reads a server-sent-events response as it arrives, so a test can wait for a given event before acting. */
export function watchSse(response: Promise<Response>): WatchedSse {
  const events: SseEvent[] = [];
  const waiters: { event: string; resolve: () => void }[] = [];
  const arrived = (e: SseEvent) => {
    events.push(e);
    for (const w of waiters.filter((x) => x.event === e.event)) w.resolve();
  };
  const done = (async () => {
    const res = await response;
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.trim()) arrived(parseFrame(frame));
      }
    }
    if (buffer.trim()) arrived(parseFrame(buffer));
    return events;
  })();
  return {
    seen: (event) =>
      events.some((e) => e.event === event)
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiters.push({ event, resolve })),
            done.then(() => {
              if (!events.some((e) => e.event === event)) throw new Error(`the stream ended without a ${event} event`);
            }),
          ]),
    events: done,
  };
}
