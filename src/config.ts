import crypto from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { listenOriginOf } from './core/links/link-origins';
import { TrustedProxies } from './core/net/trusted-proxies';
import { ConnectionSettings, ProvidersConfig } from './core/providers/settings';
import { PROVIDER_NAMES } from './core/providers/registry';
import type { ProviderName } from './core/providers/types';
import { DevelopmentSecrets, developmentSecrets } from './dev-secrets';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined));
const optionalUrl = optionalString.pipe(z.url().optional());
const flag = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

type ProviderEnv = Uppercase<ProviderName>;
const envPrefix = (p: ProviderName) => p.toUpperCase() as ProviderEnv;

/** A comma-separated list: entries trimmed, none of them empty; unset or blank is the empty list. */
function commaList<T extends z.ZodType<unknown, string>>(entry: T) {
  return z
    .string()
    .optional()
    .transform((v) => (v && v.trim() !== '' ? v.split(',').map((x) => x.trim()) : []))
    .pipe(z.array(z.string().min(1, 'has an empty entry').pipe(entry)));
}
const keyList = commaList(z.string());
const baseUrlList = commaList(z.url().transform((u) => u.replace(/\/+$/, '')));
const weightList = commaList(
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be numbers')
    .transform(Number)
    .pipe(z.number().positive('must be positive')),
);

/** `<P>_API_KEY`, `<P>_BASE_URL` and `<P>_WEIGHTS` of every provider: comma-separated, one entry per connection. */
const providerEnvShape = Object.fromEntries(
  PROVIDER_NAMES.flatMap((p) => [
    [`${envPrefix(p)}_API_KEY`, keyList],
    [`${envPrefix(p)}_BASE_URL`, baseUrlList],
    [`${envPrefix(p)}_WEIGHTS`, weightList],
  ]),
) as Record<`${ProviderEnv}_API_KEY`, typeof keyList> &
  Record<`${ProviderEnv}_BASE_URL`, typeof baseUrlList> &
  Record<`${ProviderEnv}_WEIGHTS`, typeof weightList>;

type ProviderEnvValues = { [K in keyof typeof providerEnvShape]: z.output<(typeof providerEnvShape)[K]> };

/** What is wrong with a vendor's lists: base URLs one per key or one for all, weights one per key. */
function connectionListProblems(e: ProviderEnvValues, p: ProviderName): { path: string; message: string }[] {
  const prefix = envPrefix(p);
  const keys = e[`${prefix}_API_KEY`].length;
  const urls = e[`${prefix}_BASE_URL`].length;
  const weights = e[`${prefix}_WEIGHTS`].length;
  const problems: { path: string; message: string }[] = [];
  if (keys > 0 && urls > 1 && urls !== keys) {
    problems.push({ path: `${prefix}_BASE_URL`, message: `lists ${urls} base URLs for ${keys} keys (give one per key, or one for all)` });
  }
  if (weights > 0 && weights !== keys) {
    problems.push({ path: `${prefix}_WEIGHTS`, message: `lists ${weights} weights for ${keys} keys (give one per key)` });
  }
  return problems;
}

function connectionsOf(e: ProviderEnvValues, p: ProviderName): ConnectionSettings[] {
  const prefix = envPrefix(p);
  const urls = e[`${prefix}_BASE_URL`];
  const weights = e[`${prefix}_WEIGHTS`];
  return e[`${prefix}_API_KEY`].map((apiKey, i) => ({ apiKey, baseUrl: urls.length > 1 ? urls[i] : urls[0], weight: weights[i] ?? 1 }));
}

function providersOf(e: Env): ProvidersConfig {
  const vendors = {} as Record<ProviderName, ConnectionSettings[]>;
  for (const p of PROVIDER_NAMES) vendors[p] = connectionsOf(e, p);
  return {
    vendors,
    timeoutMs: e.UPSTREAM_TIMEOUT_MS,
    poolSize: e.VENDOR_POOL_SIZE,
    concurrency: e.PROVIDER_CONCURRENCY,
  };
}

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    LISTEN_BACKLOG: z.coerce.number().int().positive().default(4096),
    HOST: z.string().default('0.0.0.0'),
    PUBLIC_URL: optionalUrl,
    DATABASE_URL: optionalUrl,
    REDIS_URL: optionalUrl,
    REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().positive().default(500),
    DATA_DIR: z.string().default('./data'),
    STORAGE: z.enum(['local', 's3']).default('local'),
    S3_BUCKET: optionalString,
    S3_ENDPOINT: optionalUrl,
    S3_REGION: z.string().default('us-east-1'),
    S3_ACCESS_KEY_ID: optionalString,
    S3_SECRET_ACCESS_KEY: optionalString,
    S3_FORCE_PATH_STYLE: flag,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SANDBOX: flag,
    JWT_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    API_KEY_PEPPER: optionalString,
    REASONING_KEY: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    BOT_TOKEN: optionalString,
    BOT_MODE: z.enum(['polling', 'webhook']).default('polling'),
    BOT_WEBHOOK_SECRET: optionalString.pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{16,256}$/, 'must be 16-256 characters of A-Z, a-z, 0-9, _ and -')
        .optional(),
    ),
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
    TELEGRAM_WIDGET_SCRIPT_URL: optionalUrl,
    TELEGRAM_WEBAPP_SCRIPT_URL: z.url().default('https://telegram.org/js/telegram-web-app.js'),
    REFERRAL_BONUS_INVITER: z.coerce.number().int().min(0).max(1_000_000).default(100),
    REFERRAL_BONUS_INVITEE: z.coerce.number().int().min(0).max(1_000_000).default(50),
    OIDC_AUTHORIZATION_URL: z.url().default('https://accounts.google.com/o/oauth2/v2/auth'),
    SMTP_URL: optionalUrl,
    MAIL_FROM: z.string().default('no-reply@localhost'),
    TRUST_PROXY: optionalString.transform((v, ctx) => {
      try {
        return TrustedProxies.parse(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
    METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    TELEGRAM_WIDGET_ORIGIN: z
      .url()
      .optional()
      .transform((v) => (v === undefined ? undefined : new URL(v).origin)),
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(120000),
    PROVIDER_CONCURRENCY: z.coerce.number().int().positive().default(8),
    VENDOR_POOL_SIZE: z.coerce.number().int().positive().default(256),
    BROADCAST_MESSAGES_PER_SECOND: z.coerce.number().positive().max(30).default(25),
    YOOKASSA_SHOP_ID: optionalString,
    YOOKASSA_SECRET_KEY: optionalString,
    YOOKASSA_BASE_URL: optionalUrl,
    YOOKASSA_RECEIPTS: flag,
    YOOKASSA_VAT_CODE: z.coerce.number().int().min(1).max(12).default(1),
    WEBHOOK_ALLOW_PRIVATE: flag,
    WEBHOOK_MAX_ENDPOINTS: z.coerce.number().int().positive().default(10),
    PRICES_RUB_PER_USD: z.coerce.number().positive().default(90),
    PRICES_USD_PER_STAR: z.coerce.number().positive().default(0.013),
    WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().positive().default(15000),
    WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().positive().default(86_400_000),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(10_000),
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(10000),
    INSTANCE_ID: optionalString,
    BILLING_BATCH: z.enum(['on', 'off']).default('on'),
    BILLING_SETTLE_COMMIT: z.enum(['sync', 'async']).default('async'),
    ...providerEnvShape,
  })
  .superRefine((env, ctx) => {
    for (const p of PROVIDER_NAMES) {
      for (const { path, message } of connectionListProblems(env, p)) ctx.addIssue({ code: 'custom', path: [path], message });
    }
    if (env.STORAGE === 's3' && !env.S3_BUCKET)
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when STORAGE=s3' });
    if (env.NODE_ENV === 'production') {
      for (const key of ['JWT_SECRET', 'API_KEY_PEPPER'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'is required when NODE_ENV=production' });
      }
      if (Boolean(env.YOOKASSA_SHOP_ID) !== Boolean(env.YOOKASSA_SECRET_KEY)) {
        ctx.addIssue({ code: 'custom', path: ['YOOKASSA_SECRET_KEY'], message: 'YOOKASSA_SHOP_ID and YOOKASSA_SECRET_KEY go together' });
      }
      if (env.BOT_TOKEN && env.BOT_MODE === 'webhook' && !env.BOT_WEBHOOK_SECRET) {
        ctx.addIssue({ code: 'custom', path: ['BOT_WEBHOOK_SECRET'], message: 'is required for a production webhook' });
      }
    }
  });

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Secrets missing outside production come from `DATA_DIR/dev-secrets.json` (random, made on first start);
 * production has refused to start without them already. The webhook secret of a polling bot is never used.
 */
function secretsOf(e: {
  NODE_ENV: string;
  DATA_DIR: string;
  JWT_SECRET?: string;
  API_KEY_PEPPER?: string;
  BOT_WEBHOOK_SECRET?: string;
}): DevelopmentSecrets {
  const given = { jwtSecret: e.JWT_SECRET, apiKeyPepper: e.API_KEY_PEPPER, botWebhookSecret: e.BOT_WEBHOOK_SECRET };
  if (given.jwtSecret && given.apiKeyPepper && given.botWebhookSecret) {
    return { jwtSecret: given.jwtSecret, apiKeyPepper: given.apiKeyPepper, botWebhookSecret: given.botWebhookSecret };
  }
  const fallback =
    e.NODE_ENV === 'production'
      ? { jwtSecret: '', apiKeyPepper: '', botWebhookSecret: crypto.randomBytes(32).toString('base64url') }
      : developmentSecrets(path.resolve(e.DATA_DIR));
  return {
    jwtSecret: given.jwtSecret ?? fallback.jwtSecret,
    apiKeyPepper: given.apiKeyPepper ?? fallback.apiKeyPepper,
    botWebhookSecret: given.botWebhookSecret ?? fallback.botWebhookSecret,
  };
}

type Env = z.output<typeof envSchema>;
const trimSlashes = (url: string | undefined) => url?.replace(/\/+$/, '');

/** How the bot receives updates; a webhook always has its secret. */
export type BotUpdates =
  | { mode: 'polling' }
  | {
      mode: 'webhook';
      webhookSecret: string;
      /** Where setWebhook points; without PUBLIC_URL the operator registers `<public url>/telegram/webhook` themselves. */
      webhookUrl?: string;
    };

function botUpdates(e: Env, secrets: DevelopmentSecrets, publicUrl: string | undefined): BotUpdates {
  if (e.BOT_MODE === 'polling') return { mode: 'polling' };
  return {
    mode: 'webhook',
    webhookSecret: secrets.botWebhookSecret,
    webhookUrl: publicUrl && `${publicUrl}/telegram/webhook`,
  };
}

function storageOf(e: Env) {
  if (e.STORAGE === 'local') return { kind: 'local' as const };
  return {
    kind: 's3' as const,
    bucket: e.S3_BUCKET!,
    region: e.S3_REGION,
    endpoint: e.S3_ENDPOINT,
    accessKeyId: e.S3_ACCESS_KEY_ID,
    secretAccessKey: e.S3_SECRET_ACCESS_KEY,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
  };
}

function toConfig(e: Env) {
  const widgetScriptUrl = e.TELEGRAM_WIDGET_SCRIPT_URL ?? `${e.TELEGRAM_WIDGET_ORIGIN ?? 'https://telegram.org'}/js/telegram-widget.js?22`;
  const secrets = secretsOf(e);
  const publicUrl = trimSlashes(e.PUBLIC_URL);
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    /** Connections the kernel queues before the server accepts them (capped by net.core.somaxconn). */
    listenBacklog: e.LISTEN_BACKLOG,
    host: e.HOST,
    publicUrl,
    /** The bases of the service's links (result files): PUBLIC_URL, else a request's origin, else the listen address. */
    links: { publicUrl, listenOrigin: listenOriginOf(e.HOST, e.PORT) },
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    /** A Redis command unanswered after this long fails, and the counters fall back to PostgreSQL. */
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    dataDir: path.resolve(e.DATA_DIR),
    /** Where result files and job inputs live: `local` under DATA_DIR, or an S3 bucket every instance shares. */
    storage: storageOf(e),
    logLevel: e.LOG_LEVEL,
    /** Providers without credentials use the built-in sandbox upstream (always outside production). */
    sandboxAllowed: e.NODE_ENV !== 'production' || e.SANDBOX,
    jwtSecret: secrets.jwtSecret,
    apiKeyPepper: secrets.apiKeyPepper,
    /**
     * What seals the reasoning state the service hands clients for vendors without their own encrypted form:
     * REASONING_KEY, else JWT_SECRET (both stable across restarts and shared by every instance).
     */
    reasoningSecret: e.REASONING_KEY ?? secrets.jwtSecret,
    bot: {
      token: e.BOT_TOKEN,
      apiRoot: trimSlashes(e.TELEGRAM_API_ROOT),
      adminChatIds: e.ADMIN_CHAT_IDS,
      broadcastPerSecond: e.BROADCAST_MESSAGES_PER_SECOND,
      ...botUpdates(e, secrets, publicUrl),
    },
    auth: {
      loginWidgetMaxAgeSeconds: e.LOGIN_WIDGET_MAX_AGE_SECONDS,
      oidcIssuer: e.OIDC_ISSUER,
      oidcClientId: e.OIDC_CLIENT_ID,
      oidcJwksUrl: e.OIDC_JWKS_URL,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    /** What the web dashboard needs to offer the Telegram and identity-provider sign-ins. */
    web: {
      telegramWidgetScriptUrl: widgetScriptUrl,
      oidcAuthorizationUrl: e.OIDC_AUTHORIZATION_URL,
      /** Telegram's Mini App script, which the dashboard loads only when Telegram opened it (allowed by the CSP). */
      telegramWebAppScriptUrl: e.TELEGRAM_WEBAPP_SCRIPT_URL,
    },
    /** Bonus tokens of a referral, credited at the invitee's first payment (0 turns one off). */
    referrals: { inviterBonus: e.REFERRAL_BONUS_INVITER, inviteeBonus: e.REFERRAL_BONUS_INVITEE },
    /** Peers whose X-Forwarded-For is believed (TRUST_PROXY); none by default. */
    trustProxy: e.TRUST_PROXY,
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT },
    /** Origin of the Telegram Login Widget script, allowed by the CSP of HTML pages: TELEGRAM_WIDGET_ORIGIN, else the script's. */
    telegramWidgetOrigin: e.TELEGRAM_WIDGET_ORIGIN ?? new URL(widgetScriptUrl).origin,
    /** On SIGTERM, open answers and job steps get this long to finish before they are aborted (and billed). */
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    /** Names this instance across restarts (default: generated once into DATA_DIR/instance-id). */
    instanceId: e.INSTANCE_ID,
    /** Group commit of the chat answers' token holds and settlements (BILLING_BATCH=off: one statement per call). */
    billingBatch: e.BILLING_BATCH === 'on',
    /**
     * `sync` (default): a chat answer's charge is on disk before the answer reports it. `async` (opt-in): the charge
     * commits without waiting for the WAL flush; a PostgreSQL crash can lose the last ~0.6 s of charges (README).
     */
    billingSettleCommit: e.BILLING_SETTLE_COMMIT,
    /** Each vendor's credential and address, the upstream timeout and concurrency (the core's own type). */
    providers: providersOf(e),
    /** The web payment provider (YooKassa API v3); without credentials it runs on the sandbox fake outside production. */
    yookassa: { shopId: e.YOOKASSA_SHOP_ID, secretKey: e.YOOKASSA_SECRET_KEY, baseUrl: trimSlashes(e.YOOKASSA_BASE_URL) },
    /** 54-FZ receipts with every carrier payment and refund (YOOKASSA_RECEIPTS=1), with this VAT code. */
    receipts: e.YOOKASSA_RECEIPTS ? { vatCode: e.YOOKASSA_VAT_CODE } : null,
    /** How `catalog:prices` values the rubles and Telegram Stars tokens are sold for, in US dollars (vendor prices). */
    currencyRates: { rubPerUsd: e.PRICES_RUB_PER_USD, usdPerStar: e.PRICES_USD_PER_STAR },
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      maxEndpoints: e.WEBHOOK_MAX_ENDPOINTS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
  };
}

/** The environment, validated and shaped into the configuration; its output type is `AppConfig`. */
const configSchema = envSchema.transform(toConfig);
export type AppConfig = z.output<typeof configSchema>;

export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = configSchema.safeParse(source);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  return parsed.data;
}
