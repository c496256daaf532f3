import crypto from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { PROVIDER_NAMES, ProviderName } from './core/providers/types';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined));
const optionalUrl = optionalString.pipe(z.url().optional());
const flag = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const providerSchema = z.object({ apiKey: optionalString, baseUrl: optionalUrl });

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('0.0.0.0'),
    PUBLIC_URL: optionalUrl,
    DATABASE_URL: optionalUrl,
    REDIS_URL: optionalUrl,
    DATA_DIR: z.string().default('./data'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SANDBOX: flag,
    JWT_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    API_KEY_PEPPER: optionalString,
    BOT_TOKEN: optionalString,
    BOT_MODE: z.enum(['polling', 'webhook']).default('polling'),
    BOT_WEBHOOK_SECRET: optionalString,
    TELEGRAM_API_ROOT: optionalUrl,
    ADMIN_CHAT_IDS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const ids = (v ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        for (const id of ids) {
          if (!/^-?\d+$/.test(id)) ctx.addIssue({ code: 'custom', message: `"${id}" is not a chat id` });
        }
        return ids.map(Number);
      }),
    LOGIN_WIDGET_MAX_AGE_SECONDS: z.coerce.number().int().positive().default(86400),
    OIDC_ISSUER: z.string().default('https://accounts.google.com'),
    OIDC_CLIENT_ID: optionalString,
    OIDC_JWKS_URL: z.url().default('https://www.googleapis.com/oauth2/v3/certs'),
    SMTP_URL: optionalUrl,
    MAIL_FROM: z.string().default('no-reply@localhost'),
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(120000),
    PROVIDER_CONCURRENCY: z.coerce.number().int().positive().default(8),
    WEBHOOK_ALLOW_PRIVATE: flag,
    WEBHOOK_MAX_ENDPOINTS: z.coerce.number().int().positive().default(10),
    WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().positive().default(15000),
    WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().positive().default(86_400_000),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(10_000),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production') {
      for (const key of ['JWT_SECRET', 'API_KEY_PEPPER'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'is required when NODE_ENV=production' });
      }
      if (env.BOT_TOKEN && env.BOT_MODE === 'webhook' && !env.BOT_WEBHOOK_SECRET) {
        ctx.addIssue({ code: 'custom', path: ['BOT_WEBHOOK_SECRET'], message: 'is required for a production webhook' });
      }
    }
  });

export interface ProviderSettings {
  apiKey?: string;
  baseUrl?: string;
}

export interface AppConfig {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  publicUrl?: string;
  databaseUrl?: string;
  redisUrl?: string;
  dataDir: string;
  logLevel: string;
  /** Providers without credentials use the built-in sandbox upstream (always outside production). */
  sandboxAllowed: boolean;
  jwtSecret: string;
  apiKeyPepper: string;
  bot: {
    token?: string;
    mode: 'polling' | 'webhook';
    webhookSecret: string;
    apiRoot?: string;
    adminChatIds: number[];
  };
  auth: {
    loginWidgetMaxAgeSeconds: number;
    oidcIssuer: string;
    oidcClientId?: string;
    oidcJwksUrl: string;
  };
  mail: { smtpUrl?: string; from: string };
  upstreamTimeoutMs: number;
  providerConcurrency: number;
  providers: Record<ProviderName, ProviderSettings>;
  webhooks: { allowPrivate: boolean; maxEndpoints: number; retryBaseMs: number; retryWindowMs: number; timeoutMs: number };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** A stable development secret derived from the data directory, so restarts keep sessions valid. */
function developmentSecret(dataDir: string, purpose: string): string {
  return crypto.createHash('sha256').update(`dev-only:${purpose}:${path.resolve(dataDir)}`).digest('hex');
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const problems: string[] = [];
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  const providers = {} as Record<ProviderName, ProviderSettings>;
  for (const p of PROVIDER_NAMES) {
    const prefix = p.toUpperCase();
    const r = providerSchema.safeParse({ apiKey: source[`${prefix}_API_KEY`], baseUrl: source[`${prefix}_BASE_URL`] });
    if (!r.success) problems.push(...r.error.issues.map((i) => `${prefix}_${i.path[0] === 'apiKey' ? 'API_KEY' : 'BASE_URL'}: ${i.message}`));
    else providers[p] = { apiKey: r.data.apiKey, baseUrl: r.data.baseUrl?.replace(/\/+$/, '') };
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    dataDir: path.resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    sandboxAllowed: e.NODE_ENV !== 'production' || e.SANDBOX,
    jwtSecret: e.JWT_SECRET ?? developmentSecret(e.DATA_DIR, 'jwt'),
    apiKeyPepper: e.API_KEY_PEPPER ?? developmentSecret(e.DATA_DIR, 'api-key'),
    bot: {
      token: e.BOT_TOKEN,
      mode: e.BOT_MODE,
      webhookSecret: e.BOT_WEBHOOK_SECRET ?? developmentSecret(e.DATA_DIR, 'webhook').slice(0, 32),
      apiRoot: e.TELEGRAM_API_ROOT?.replace(/\/+$/, ''),
      adminChatIds: e.ADMIN_CHAT_IDS,
    },
    auth: {
      loginWidgetMaxAgeSeconds: e.LOGIN_WIDGET_MAX_AGE_SECONDS,
      oidcIssuer: e.OIDC_ISSUER,
      oidcClientId: e.OIDC_CLIENT_ID,
      oidcJwksUrl: e.OIDC_JWKS_URL,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    providerConcurrency: e.PROVIDER_CONCURRENCY,
    providers,
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      maxEndpoints: e.WEBHOOK_MAX_ENDPOINTS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
  };
}
