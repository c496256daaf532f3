import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../src/config';
import { DEV_SECRETS_FILE } from '../src/dev-secrets';
import { ProviderConnections } from '../src/core/providers/connections';
import { providerAdapters } from '../src/core/providers/registry';

test('a bad environment is refused with every bad variable named', () => {
  let err: unknown;
  try {
    loadConfig({ PORT: 'eighty', BOT_MODE: 'carrier-pigeon', OPENAI_BASE_URL: 'not a url', ADMIN_CHAT_IDS: '12,abc' });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  const message = (err as Error).message;
  for (const name of ['PORT', 'BOT_MODE', 'OPENAI_BASE_URL', 'ADMIN_CHAT_IDS']) expect(message).toContain(name);
});

test('production refuses to start without its secrets; development generates random ones and keeps them', () => {
  expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET[\s\S]*API_KEY_PEPPER|API_KEY_PEPPER[\s\S]*JWT_SECRET/);
  expect(() =>
    loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), API_KEY_PEPPER: 'p', BOT_TOKEN: '1:x', BOT_MODE: 'webhook' }),
  ).toThrow(/BOT_WEBHOOK_SECRET/);
  const x = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-secrets-'));
  const y = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-secrets-'));
  try {
    const a = loadConfig({ DATA_DIR: x, BOT_MODE: 'webhook' });
    const b = loadConfig({ DATA_DIR: x, BOT_MODE: 'webhook' });
    if (a.bot.mode !== 'webhook' || b.bot.mode !== 'webhook') throw new Error('webhook mode expected');
    expect(a.jwtSecret).toBe(b.jwtSecret);
    expect(a.apiKeyPepper).toBe(b.apiKeyPepper);
    expect(a.bot.webhookSecret).toBe(b.bot.webhookSecret);
    const file = path.join(x, DEV_SECRETS_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const other = loadConfig({ DATA_DIR: y });
    expect(other.jwtSecret).not.toBe(a.jwtSecret);
    // Same folder name elsewhere, fresh start: nothing is derived from the path.
    fs.rmSync(file);
    expect(loadConfig({ DATA_DIR: x }).jwtSecret).not.toBe(a.jwtSecret);
    expect(new Set([a.jwtSecret, a.apiKeyPepper, a.bot.webhookSecret]).size).toBe(3);
    expect(loadConfig({ DATA_DIR: x, JWT_SECRET: 's'.repeat(40) }).jwtSecret).toBe('s'.repeat(40));
  } finally {
    fs.rmSync(x, { recursive: true, force: true });
    fs.rmSync(y, { recursive: true, force: true });
  }
  expect(loadConfig({ DATA_DIR: y }).port).toBe(3000);
  fs.rmSync(y, { recursive: true, force: true });
  expect(loadConfig({ DATA_DIR: y, ADMIN_CHAT_IDS: '1, -100200' }).bot.adminChatIds).toEqual([1, -100200]);
  fs.rmSync(y, { recursive: true, force: true });
  expect(() => loadConfig({ DATA_DIR: y, TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
  expect(loadConfig({ DATA_DIR: y, TRUST_PROXY: 'loopback,192.168.0.0/16' }).trustProxy.trusts('192.168.3.4')).toBe(true);
  fs.rmSync(y, { recursive: true, force: true });
});

test('the bot mode decides the shape: a webhook carries its secret and URL, polling has neither', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-bot-mode-'));
  try {
    const polling = loadConfig({ DATA_DIR: dir, BOT_TOKEN: '1:x' });
    expect(polling.bot).toEqual({ mode: 'polling', token: '1:x', apiRoot: undefined, adminChatIds: [], broadcastPerSecond: 25 });
    const secret = 's'.repeat(20);
    const hook = loadConfig({ DATA_DIR: dir, BOT_MODE: 'webhook', BOT_WEBHOOK_SECRET: secret, PUBLIC_URL: 'https://ai.example.com/' });
    expect(hook.bot).toMatchObject({ mode: 'webhook', webhookSecret: secret, webhookUrl: 'https://ai.example.com/telegram/webhook' });
    const noUrl = loadConfig({ DATA_DIR: dir, BOT_MODE: 'webhook', BOT_WEBHOOK_SECRET: secret });
    expect(noUrl.bot).toMatchObject({ mode: 'webhook', webhookSecret: secret, webhookUrl: undefined });
    // @ts-expect-error the secret exists only once the mode is known to be webhook
    expect(polling.bot.webhookSecret).toBeUndefined();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('provider connections', () => {
  const mount = (p: string) => `http://127.0.0.1:9/${p}`;
  /** As src/services.ts builds them: the sandbox is offered only where the configuration allows it. */
  const connectionsFor = (env: NodeJS.ProcessEnv) => {
    const config = loadConfig(env);
    return new ProviderConnections(config.providers, providerAdapters, config.sandboxAllowed ? mount : undefined);
  };

  test('without credentials outside production a provider uses the sandbox, under the vendor path', () => {
    const c = connectionsFor({});
    expect(c.info('openai')).toMatchObject({ mode: 'sandbox', baseUrl: 'http://127.0.0.1:9/openai/v1' });
    expect(c.connection('openai', 'gpt-6-luna').sandbox).toBe(true);
  });

  test('with credentials a provider is live, at <P>_BASE_URL when set', () => {
    const c = connectionsFor({ OPENAI_API_KEY: 'sk-1', OPENAI_BASE_URL: 'https://llm.internal/v1/' });
    expect(c.connection('openai', 'gpt-6-luna')).toMatchObject({ apiKey: 'sk-1', baseUrl: 'https://llm.internal/v1', sandbox: false });
    const d = connectionsFor({ ANTHROPIC_API_KEY: 'k' });
    expect(d.info('anthropic')).toMatchObject({ mode: 'live', baseUrl: 'https://api.anthropic.com/v1' });
  });

  test('in production a provider without credentials is unavailable (503) unless SANDBOX=1', () => {
    const prod = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), API_KEY_PEPPER: 'p' };
    const c = connectionsFor(prod);
    expect(c.info('bfl').mode).toBe('unavailable');
    expect(() => c.connection('bfl', 'flux-dev')).toThrow(/flux-dev is unavailable/);
    expect(connectionsFor({ ...prod, SANDBOX: '1' }).info('bfl').mode).toBe('sandbox');
  });
});

describe('several connections per vendor', () => {
  test('comma-separated keys, one base URL per key or one for all, weights one per key', () => {
    const pooled = loadConfig({
      OPENAI_API_KEY: 'sk-a, sk-b ,sk-c',
      OPENAI_BASE_URL: 'https://eu.example.com/v1/',
      OPENAI_WEIGHTS: '3,1,0.5',
      ANTHROPIC_API_KEY: 'k1,k2',
      ANTHROPIC_BASE_URL: 'https://a.example.com/v1,https://b.example.com/v1',
    }).providers.vendors;
    expect(pooled.openai).toEqual([
      { apiKey: 'sk-a', baseUrl: 'https://eu.example.com/v1', weight: 3 },
      { apiKey: 'sk-b', baseUrl: 'https://eu.example.com/v1', weight: 1 },
      { apiKey: 'sk-c', baseUrl: 'https://eu.example.com/v1', weight: 0.5 },
    ]);
    expect(pooled.anthropic).toEqual([
      { apiKey: 'k1', baseUrl: 'https://a.example.com/v1', weight: 1 },
      { apiKey: 'k2', baseUrl: 'https://b.example.com/v1', weight: 1 },
    ]);
    expect(pooled.google).toEqual([]);
  });

  test('lists that do not pair up are refused, naming the variable and the counts', () => {
    const problems = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(env);
      } catch (err) {
        return (err as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ OPENAI_API_KEY: 'a,b,c', OPENAI_BASE_URL: 'https://x.example.com,https://y.example.com' })).toEqual([
      'OPENAI_BASE_URL: lists 2 base URLs for 3 keys (give one per key, or one for all)',
    ]);
    expect(problems({ XAI_API_KEY: 'a,b', XAI_WEIGHTS: '1' })).toEqual(['XAI_WEIGHTS: lists 1 weights for 2 keys (give one per key)']);
    expect(problems({ XAI_API_KEY: 'a,b', XAI_WEIGHTS: '1,-2' })[0]).toMatch(/^XAI_WEIGHTS/);
    expect(problems({ DEEPSEEK_API_KEY: 'a,,b' })[0]).toMatch(/^DEEPSEEK_API_KEY.*empty entry/);
    expect(problems({ BFL_API_KEY: 'a', BFL_BASE_URL: 'https://ok.example.com,nope' })[0]).toMatch(/^BFL_BASE_URL/);
  });

  test('each key is a connection of its own, named by a stable id that holds no key', () => {
    const config = loadConfig({ OPENAI_API_KEY: 'sk-secret-a,sk-secret-b', OPENAI_BASE_URL: 'https://llm.internal/v1' });
    const pool = new ProviderConnections(config.providers, providerAdapters).pool('openai', 'gpt-6-luna');
    expect(pool.map((c) => [c.index, c.of, c.conn.apiKey, c.conn.baseUrl, c.conn.sandbox])).toEqual([
      [0, 2, 'sk-secret-a', 'https://llm.internal/v1', false],
      [1, 2, 'sk-secret-b', 'https://llm.internal/v1', false],
    ]);
    expect(new Set(pool.map((c) => c.id)).size).toBe(2);
    for (const c of pool) expect(c.id).not.toMatch(/secret/);
    const again = new ProviderConnections(loadConfig({ OPENAI_API_KEY: 'sk-secret-b' }).providers, providerAdapters);
    expect(again.pool('openai', 'gpt-6-luna')[0]!.id).not.toBe(pool[1]!.id);
  });
});
