import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createApiApp } from '../../src/api/app';
import { loadConfig } from '../../src/config';
import { AuthService } from '../../src/core/accounts/auth-service';
import type { MailMessage, Mailer } from '../../src/core/accounts/mailer';
import { hashPassword } from '../../src/core/accounts/passwords';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import type { PlanSlug } from '../../src/core/catalog/types';
import { GenerationEntity, type UserEntity } from '../../src/db/entities';
import type { DataSource } from 'typeorm';
import { createServices, Services } from '../../src/services';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { SandboxHandlers, SandboxServer, startSandbox } from '../../src/sandbox/server';
import { attachTestDatabase, createTestDatabase, TestDatabase } from '../support/databases';
import { OpenApiConformance } from '../support/openapi-conformance';

export const BOT_TOKEN = '123456789:TEST-bot-token-for-login-widget';
export const JWT_SECRET = 'test-jwt-secret-that-is-long-enough-0123456789';

export interface ApiResponse {
  status: number;
  headers: Headers;
  // Wire JSON: tests narrow it with expectations.
  body: any;
  text: string;
  /** The path requested (errors under /v1 have the chat-completions shape). */
  path: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** The client address (X-Forwarded-For); a random one by default so per-IP limits do not interfere. */
  ip?: string;
}

export interface TestAccount {
  user: UserEntity;
  email: string;
  password: string;
}

export interface ApiHarness {
  db: TestDatabase;
  sandbox: SandboxServer;
  services: Services;
  baseUrl: string;
  mails: MailMessage[];
  /** Every log line the app wrote (JSON text). */
  logs: string[];
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  account(plan?: PlanSlug, extra?: { phone?: string; planTokens?: number; bonusTokens?: number; name?: string }): Promise<TestAccount>;
  /** A web access token of the account (email + password sign-in). */
  accessToken(account: TestAccount): Promise<string>;
  apiKey(account: TestAccount, name?: string): Promise<string>;
  close(): Promise<void>;
}

class CapturingMailer implements Mailer {
  readonly kind = 'log';
  constructor(readonly sent: MailMessage[]) {}
  async send(message: MailMessage): Promise<void> {
    this.sent.push(message);
  }
}

export function randomIp(): string {
  return `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;
}

export async function startApi(
  env: Record<string, string> = {},
  opts: { handlers?: SandboxHandlers; /** Another instance on this harness's database. */ sameDatabaseAs?: ApiHarness } = {},
): Promise<ApiHarness> {
  const db = opts.sameDatabaseAs ? await attachTestDatabase(opts.sameDatabaseAs.db) : await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-api-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    JWT_SECRET,
    API_KEY_PEPPER: 'test-pepper',
    BOT_TOKEN,
    LOG_LEVEL: 'info',
    // The harness talks over loopback and names a client address per request (X-Forwarded-For), as a reverse
    // proxy on the same machine would. Pass TRUST_PROXY: '' to test the default (the header ignored).
    TRUST_PROXY: 'loopback',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const log = pino({ level: 'info' }, sink);
  const sandbox = await startSandbox({ ...sandboxHandlers, ...opts.handlers });
  const base = createServices(config, log, db.dataSource, {
    databaseUrl: db.url,
    sandboxMount: sandbox.mountUrl,
    allowPrivateHosts: [new URL(sandbox.origin).host],
  });
  const mails: MailMessage[] = [];
  const mailer = new CapturingMailer(mails);
  const services: Services = {
    ...base,
    mailer,
    auth: new AuthService(db.dataSource, base.plans, base.apiKeys, mailer, log, {
      jwtSecret: config.jwtSecret,
      botToken: config.bot.token,
      loginWidgetMaxAgeSeconds: config.auth.loginWidgetMaxAgeSeconds,
      idp: { issuer: config.auth.oidcIssuer, clientId: config.auth.oidcClientId, jwksUrl: config.auth.oidcJwksUrl },
    }),
  };
  // Every status the app answers, whoever asked (api.request, an SDK, a browser), is checked against the
  // document when the harness closes.
  const answered: { method: string; url: string; status: number }[] = [];
  const app = createApiApp(services).callback();
  const server = http.createServer((req, res) => {
    res.once('finish', () => answered.push({ method: req.method ?? 'GET', url: req.url ?? '/', status: res.statusCode }));
    void app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const plans = new PlanDirectory(db.dataSource);

  // Every answer a test receives is checked against the served OpenAPI document.
  let conformance: Promise<OpenApiConformance> | undefined;
  const documented = () =>
    (conformance ??= fetch(`${baseUrl}/api/v2/openapi.json`).then(
      async (res) => new OpenApiConformance((await res.json()) as Record<string, unknown>),
    ));

  const request = async (method: string, urlPath: string, options: RequestOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { 'X-Forwarded-For': options.ip ?? randomIp(), ...options.headers };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    let body: string | Buffer | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${baseUrl}${urlPath}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const problem = (await documented()).problem(method, urlPath, res.status, res.headers.get('content-type'), parsed);
    if (problem) throw new Error(`OpenAPI conformance: ${problem}\nbody: ${text.slice(0, 500)}`);
    return { status: res.status, headers: res.headers, body: parsed, text, path: urlPath };
  };

  let counter = 0;
  const harness: ApiHarness = {
    db,
    sandbox,
    services,
    baseUrl,
    mails,
    logs,
    request,
    async account(plan = 'free', extra = {}) {
      const email = `user${++counter}-${crypto.randomBytes(3).toString('hex')}@example.com`;
      const password = `pw-${crypto.randomBytes(6).toString('hex')}`;
      const user = await createUser(db.dataSource, plans, {
        name: extra.name ?? `User ${counter}`,
        email,
        phone: extra.phone,
        passwordHash: await hashPassword(password),
        plan,
        planTokens: extra.planTokens,
        bonusTokens: extra.bonusTokens,
      });
      return { user, email, password };
    },
    async accessToken(account) {
      const res = await request('POST', '/api/v2/auth/login', { body: { email: account.email, password: account.password } });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
      return res.body.access_token as string;
    },
    async apiKey(account, name = 'test') {
      return (await services.apiKeys.create(account.user.id, name)).key;
    },
    async close() {
      const check = await documented().catch(() => undefined);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await services.close();
      await sandbox.close();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      const undocumented = new Set(
        answered.map((a) => check?.problem(a.method, a.url, a.status, null, undefined)).filter((p): p is string => p !== undefined),
      );
      if (undocumented.size > 0) throw new Error(`OpenAPI conformance, answers of this run:\n${[...undocumented].join('\n')}`);
    },
  };
  return harness;
}

/** The value of the refresh cookie in a response's Set-Cookie headers. */
export function refreshCookieOf(res: ApiResponse): string | undefined {
  for (const cookie of res.headers.getSetCookie()) {
    const m = /^nb_refresh=([^;]*)/.exec(cookie);
    if (m) return m[1];
  }
  return undefined;
}

/** The Set-Cookie header that carries the refresh cookie. */
export function refreshSetCookie(res: ApiResponse): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith('nb_refresh='));
}

export function expectErrorShape(res: ApiResponse, status: number, code?: string): void {
  expect(res.status).toBe(status);
  expect(typeof res.body).toBe('object');
  if (res.path.startsWith('/v1/')) {
    expect(res.body.error).toEqual(expect.objectContaining({ message: expect.any(String), type: expect.any(String) }));
    if (code) expect(res.body.error.code).toBe(code);
    return;
  }
  expect(typeof res.body.error).toBe('string');
  expect(res.body.error).toMatch(/^[a-z][a-z0-9_]*$/);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  if (code) expect(res.body.error).toBe(code);
}

/**
 * Fixed-window counters reset on minute/hour boundaries: a test that fills a window first waits out the last
 * `marginSeconds` before a boundary, so the window cannot turn mid-test.
 */
/** Seconds until the clock-aligned window of `windowSeconds` ends: what a refusal's Retry-After counts down to. */
export function secondsLeftInWindow(windowSeconds: number): number {
  return windowSeconds - (Math.floor(Date.now() / 1000) % windowSeconds);
}

export async function avoidWindowEdge(windowSeconds = 60, marginSeconds = 5): Promise<void> {
  const intoWindow = (Date.now() / 1000) % windowSeconds;
  const left = windowSeconds - intoWindow;
  if (left < marginSeconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));
}

/** Stores a generation row as the engine would leave it (defaults: a completed image of flux-dev). */
export async function insertGeneration(ds: DataSource, userId: number, values: Partial<GenerationEntity> = {}): Promise<GenerationEntity> {
  const repo = ds.getRepository(GenerationEntity);
  const status = values.status ?? 'completed';
  return repo.save(
    repo.create({
      userId,
      modelSlug: 'flux-dev',
      category: 'image',
      status,
      prompt: 'a fox',
      tokensReserved: values.tokensSpent ?? 3,
      tokensSpent: status === 'completed' ? 3 : 0,
      processingMs: status === 'completed' ? 1200 : null,
      completedAt: status === 'pending' ? null : new Date(),
      resultKey: status === 'completed' ? `2026/01/01/${crypto.randomBytes(8).toString('hex')}.webp` : null,
      resultMime: status === 'completed' ? 'image/webp' : null,
      ...values,
    }),
  );
}
