import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig } from './config';
import type { AccountChangeFeed } from './core/accounts/account-changes';
import { ApiKeyService } from './core/accounts/api-keys';
import { AdminAuditLog } from './core/admin/audit-log';
import { CatalogConsole } from './core/admin/catalog-console';
import { AdminOrderDesk } from './core/admin/order-desk';
import { AdminUserDesk } from './core/admin/user-desk';
import { RevenueReports } from './core/admin/revenue';
import { vendorHealth, type VendorConnectionHealth } from './core/admin/vendor-health';
import { AuthService } from './core/accounts/auth-service';
import { LogMailer, Mailer } from './core/accounts/mailer';
import { PlanDirectory } from './core/accounts/plans';
import { AccountAdmin } from './core/accounts/account-admin';
import { ProfileService } from './core/accounts/profile-service';
import { SettingsService } from './core/accounts/settings-service';
import { DeliveryOutbox } from './core/generations/delivery/delivery-outbox';
import { JsonStores } from './core/sessions/json-store';
import { GroupChats } from './core/messenger/group-chats';
import { AssistantService } from './core/assistants/assistant-service';
import { PromoService } from './core/promos/promo-service';
import { BroadcastDesk } from './core/broadcasts/broadcast-desk';
import { BroadcastRunner } from './core/broadcasts/broadcast-runner';
import { ReferralService } from './core/referrals/referral-service';
import { AccountManagement } from './core/accounts/account-management';
import { createApiKeyWithinQuota } from './core/accounts/api-key-quota';
import type { CreatedApiKey, KeyLimits } from './core/accounts/api-keys';
import type { KeyScope } from './core/accounts/key-limits';
import { ResultFiles } from './core/generations/media/result-files';
import { RefusalLog } from './core/stats/refusals';
import { UsageService } from './core/stats/usage-service';
import { FailoverCounterStore } from './core/limits/failover-store';
import { GAUGES, generationsTotal, paymentsTotal, setConnectionStateSource, setGaugeSource } from './core/ops/metrics';
import { Readiness } from './core/ops/readiness';
import { PostgresCounterStore } from './core/limits/postgres-store';
import { RateLimiter } from './core/limits/rate-limiter';
import { RedisCounterStore } from './core/limits/redis-store';
import { CounterStore } from './core/limits/types';
import { CounterModes } from './core/limits/counter-mode';
import path from 'node:path';
import PgBoss from 'pg-boss';
import { ProviderConnections } from './core/providers/connections';
import { IdempotencyStore } from './core/generations/idempotency';
import { InputResolver } from './core/generations/media/inputs';
import { MediaRunner } from './core/generations/media/runner';
import { GenerationQueue, NotifierHub } from './core/generations/ports';
import { ProviderGate } from './core/providers/provider-gate';
import { ProviderRouter } from './core/providers/router';
import { RunPreflight } from './core/generations/preflight';
import { DEFAULT_INLINE_BUDGET_MS, GenerationService } from './core/generations/service';
import { ChatService } from './core/generations/chat/service';
import { applyDeferredOutcome, BillingOutbox } from './core/generations/settlement/billing-outbox';
import { readWalPosition, SettleJournal } from './core/generations/settlement/settle-journal';
import { GenerationBilling } from './core/generations/settlement/billing-batches';
import { GenerationLeases } from './core/generations/settlement/leases';
import { recoverAbandoned, settleAccountGenerations } from './core/generations/settlement/recovery';
import { cutAnswersOfClosedAccounts } from './core/generations/chat/deleted-accounts';
import { resolveInstanceId } from './core/ops/instance-id';
import { ScheduleService } from './core/schedules/schedules';
import { StoredResponses } from './core/responses/stored-responses';
import { RefundMail } from './core/payments/refund-mail';
import { carrierGateway, PaymentService } from './core/payments/service';
import { LocalDiskStorage, ResultStorage } from './core/media/storage';
import { providerAdapters } from './core/providers/registry';
import { ProviderName } from './core/providers/types';
import { createBoss, GENERATION_STEP, PgBossGenerationQueue, PgBossResponseQueue } from './jobs/boss';
import { QueuedMailer } from './jobs/mail';
import { PgBossWebhookQueue } from './jobs/webhook-jobs';
import { announceFinished } from './core/generations/delivery/announce';
import { WebhookService } from './core/webhooks/service';
import { FastSql } from './db/fast-sql';
import { SandboxCheckoutPages } from './core/payments/sandbox-checkout';
import { PgAccountChangeFeed } from './db/account-change-feed';
import { CATALOG_CHANGES_CHANNEL } from './core/catalog/live/changes';
import { ANSWER_STOPS_CHANNEL, AnswerStops } from './core/messenger/answer-stops';
import { LiveCatalog } from './core/catalog/live/live-catalog';
import { linkBase } from './core/links/link-origins';
import { CatalogStore } from './core/catalog/live/store';
import type { Logger } from './logger';

/** Everything the front ends and workers share, built once per process. */
export interface Services {
  config: AppConfig;
  log: Logger;
  ds: DataSource;
  redis?: Redis;
  plans: PlanDirectory;
  limiter: RateLimiter;
  /** The PostgreSQL counters (also the fallback when Redis fails); maintenance purges old windows. */
  counters: PostgresCounterStore;
  apiKeys: ApiKeyService;
  /** Account changes heard from PostgreSQL (every instance, every writer): what caches of accounts listen to. */
  accountChanges: AccountChangeFeed;
  /** The catalog's overrides and vendor findings from the database, reloaded on every change (any instance). */
  catalog: LiveCatalog;
  /** Sign-in, sessions, bearer credentials, password recovery (src/core/accounts/auth-service.ts). */
  auth: AuthService;
  /** Queues mail as a durable job (see jobs/mail.ts); delivered by `mailTransport`: SMTP when SMTP_URL is set, else the log. */
  mailer: Mailer;
  mailTransport: Mailer;
  storage: ResultStorage;
  connections: ProviderConnections;
  /** Per-provider concurrency and a circuit per connection; `onCircuitChange` tells who listens (the admins). */
  gate: ProviderGate;
  /** The order each request tries a vendor's connections in; `health()` is every connection's state. */
  router: ProviderRouter;
  notifier: NotifierHub;
  boss: PgBoss;
  /** Stops taking jobs at once, lets running steps finish for up to `timeoutMs`, then stops the queue quietly. */
  stopJobs(timeoutMs: number): Promise<void>;
  queue: GenerationQueue;
  generations: GenerationService;
  chat: ChatService;
  schedules: ScheduleService;
  /** Responses kept for their account (`/v1/responses` with `store`), and the background ones' runs. */
  responses: StoredResponses;
  idempotency: IdempotencyStore;
  /** Generations this process runs itself; what a crashed process left is resolved from here. */
  leases: GenerationLeases;
  /** Resolves generations abandoned by a dead process (`own`: this instance's, at start). */
  recoverAbandoned(own: boolean): Promise<number>;
  /** Articles, orders, carrier checkout, Telegram Stars, refunds; `payments.hub` takes PaymentListeners. */
  payments: PaymentService;
  /** Webhook endpoints and signed event delivery (src/core/webhooks). */
  webhooks: WebhookService;
  /** The readiness probe: phase (starting, ready, draining) and dependency checks. */
  readiness: Readiness;
  /** Chat outcomes the database could not take yet (replayed at start and every few seconds). */
  outbox: BillingOutbox;
  // Narrow core services the doors use instead of the DataSource.
  settings: SettingsService;
  profiles: ProfileService;
  usage: UsageService;
  /** Calls refused before anything ran (403, 402, 429), for the account's request log. */
  refusals: RefusalLog;
  accountAdmin: AccountAdmin;
  /** The append-only log of admin actions (bot, dashboard, CLI): pass the action's transaction manager. */
  adminAudit: AdminAuditLog;
  /** The console's money: revenue, vendor cost and margin; every account's orders and their refunds (audited). */
  revenue: RevenueReports;
  adminOrders: AdminOrderDesk;
  /** The console's accounts: search, one account's page; grants, plans, blocks and sessions (audited). */
  adminUsers: AdminUserDesk;
  /** The console's catalog: lifecycle, rates beside vendor cost, the last check; catalog:set's changes, audited. */
  catalogConsole: CatalogConsole;
  /** Each vendor connection's breaker, 5-minute error rate and quota pause (this instance). */
  vendorHealth(): VendorConnectionHealth[];
  /** Messenger results waiting for delivery (claimed once, retried, swept). */
  deliveries: DeliveryOutbox;
  /** Key/value JSON state (the bot's sessions and conversations). */
  jsonStores: JsonStores;
  /** Messenger groups the bot was switched off in by their admins (/off, /on). */
  groupChats: GroupChats;
  /** Stop requests for the bot's answers in progress, heard by every instance. */
  answerStops: AnswerStops;
  assistants: AssistantService;
  /** Invitation codes and links; new accounts tied to their inviters (the bonuses are paid at fulfilment). */
  referrals: ReferralService;
  promos: PromoService;
  /** The operator's broadcasts: made, listed, canceled (audited). */
  broadcasts: BroadcastDesk;
  /** Sends the open broadcasts once the bot gives it a sender (BroadcastRunner.start). */
  broadcastRunner: BroadcastRunner;
  /** Rate limit, balance and plan checks before a run is set up (nothing counted or held). */
  preflight: RunPreflight;
  /** Creates an API key within the per-account cap (`by`: the key the request came with, see assertKeyMayWrite). */
  createApiKey(userId: number, name: string, limits?: KeyLimits, by?: KeyScope): Promise<CreatedApiKey>;
  /** The account holder's password, sessions and account deletion. */
  accounts: AccountManagement;
  resultFiles: ResultFiles;
  close(): Promise<void>;
}

export interface ServiceOptions {
  databaseUrl: string;
  /** Mount URL of each vendor fake when the built-in sandbox upstream runs. */
  sandboxMount?: (vendor: ProviderName | 'yookassa') => string;
  /** host:port entries the SSRF-safe fetch may reach although private (tests, local development). */
  allowPrivateHosts?: string[];
  inlineBudgetMs?: number;
}

/* eslint-disable @typescript-eslint/no-require-imports -- deferred loads: only a process that uses them pays for them */
const loadSmtpMailer = () => require('./core/accounts/smtp-mailer') as typeof import('./core/accounts/smtp-mailer');
const loadS3Storage = () => require('./core/media/s3-storage') as typeof import('./core/media/s3-storage');
/* eslint-enable @typescript-eslint/no-require-imports */

function connectRedis(url: string, commandTimeoutMs: number, log: Logger): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    // A frozen Redis (alive socket, no answers) fails each command after this, and the counters move to PostgreSQL.
    commandTimeout: commandTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
    // A counting command is never sent again on a new connection: the server behind it may be another one, whose
    // counts are checked (run id, marker) before anything is counted there.
    autoResendUnfulfilledCommands: false,
  });
  let down = false;
  redis.on('error', (err) => {
    if (!down) log.warn({ err: err.message }, 'Redis unavailable: rate counters fall back to PostgreSQL');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info('Redis is back');
    down = false;
  });
  return redis;
}

export function createServices(config: AppConfig, log: Logger, ds: DataSource, options: ServiceOptions): Services {
  const redis = config.redisUrl ? connectRedis(config.redisUrl, config.redisCommandTimeoutMs, log) : undefined;
  const sql = FastSql.of(ds);
  const pgCounters = new PostgresCounterStore(ds);
  const failover = redis
    ? new FailoverCounterStore(new RedisCounterStore(redis), pgCounters, new CounterModes(ds, sql), {
        onFailover: (reason) => log.warn({ reason }, 'rate counters moved to PostgreSQL (Redis failed or timed out)'),
        onRecovered: () => log.info('rate counters back on Redis (restored from the PostgreSQL counts first)'),
        onRestored: (mode) => log.info({ epoch: mode.epoch }, 'rate counters restored into Redis from PostgreSQL'),
      })
    : undefined;
  const counters: CounterStore = failover ?? pgCounters;
  setGaugeSource(GAUGES.redisFallback, () => (failover?.onFallback ? 1 : 0));
  // Lease heartbeats and (by default) settlements do not wait for the WAL flush; holds do.
  const asyncCommit = FastSql.asyncCommitPool(options.databaseUrl);
  const plans = new PlanDirectory(ds);
  const changeFeed = new PgAccountChangeFeed(options.databaseUrl, log);
  const catalog = new LiveCatalog(new CatalogStore(ds), log);
  changeFeed.listen(CATALOG_CHANGES_CHANNEL, catalog);
  const answerStops = new AnswerStops(ds);
  changeFeed.listen(ANSWER_STOPS_CHANNEL, answerStops);
  const accountChanges = changeFeed.start();
  const apiKeys = new ApiKeyService(ds, config.apiKeyPepper, { sql, changes: accountChanges });
  const jobQueue = createBoss(options.databaseUrl, log);
  const boss = jobQueue.boss;
  // nodemailer and the S3 SDK load only in a process configured to use them (memory: neither is small).
  const mailTransport: Mailer = config.mail.smtpUrl
    ? new (loadSmtpMailer().SmtpMailer)(config.mail.smtpUrl, config.mail.from)
    : new LogMailer(log, config.env !== 'production');
  const mailer = new QueuedMailer(boss, mailTransport);
  const auth = new AuthService(ds, plans, apiKeys, mailer, log, {
    jwtSecret: config.jwtSecret,
    botToken: config.bot.token,
    loginWidgetMaxAgeSeconds: config.auth.loginWidgetMaxAgeSeconds,
    idp: { issuer: config.auth.oidcIssuer, clientId: config.auth.oidcClientId, jwksUrl: config.auth.oidcJwksUrl },
  });
  const limiter = new RateLimiter(counters);
  const storage: ResultStorage =
    config.storage.kind === 's3'
      ? new (loadS3Storage().S3Storage)(config.storage)
      : new LocalDiskStorage(path.join(config.dataDir, 'results'));
  const sandboxMount = config.sandboxAllowed ? options.sandboxMount : undefined;
  const connections = new ProviderConnections(config.providers, providerAdapters, sandboxMount);
  const gate = new ProviderGate({ concurrency: config.providers.concurrency, failureThreshold: 5, cooldownMs: 30_000 });
  const router = new ProviderRouter(connections, gate);
  setConnectionStateSource(() => router.health());
  const notifier = new NotifierHub();
  setGaugeSource(GAUGES.queueDepth, () => boss.getQueueSize(GENERATION_STEP));
  setGaugeSource(GAUGES.reservationsOpen, async () => {
    const rows = await ds.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM token_reservations WHERE status = 'reserved'`);
    return rows[0].n;
  });
  const queue = new PgBossGenerationQueue(boss);
  const responses = new StoredResponses(ds, plans, apiKeys);
  responses.runOn(new PgBossResponseQueue(boss));
  const webhooks = new WebhookService({
    ds,
    queue: new PgBossWebhookQueue(boss),
    log,
    changes: accountChanges,
    settings: {
      allowPrivate: config.webhooks.allowPrivate,
      requireHttps: config.env === 'production',
      maxEndpoints: config.webhooks.maxEndpoints,
      retry: { baseMs: config.webhooks.retryBaseMs, windowMs: config.webhooks.retryWindowMs },
      timeoutMs: config.webhooks.timeoutMs,
      links: config.links,
    },
  });
  notifier.add(webhooks);
  notifier.add({ generationFinished: async (g) => void generationsTotal.inc({ model: g.modelSlug, status: g.status }) });
  // A vendor's "model not found" on a real request marks the model suspect and tells the admins; it retires nothing.
  const onModelNotFound = (slug: string) =>
    void catalog.modelNotFound(slug).catch((err: Error) => log.warn({ err: err.message, model: slug }, 'suspect model not recorded'));
  const runner = new MediaRunner({ ds, sql, plans, storage, router, adapters: providerAdapters, notifier, log, onModelNotFound });
  const inputs = new InputResolver({ storage, allowPrivateHosts: options.allowPrivateHosts });
  const readiness = new Readiness();
  readiness.addCheck('database', () => ds.query('SELECT 1'));
  // Without Redis the counters run on PostgreSQL: the instance still serves (degraded), so it stays ready.
  if (redis) readiness.addCheck('redis', () => redis.ping(), { hasFallback: true });
  // A replayed chat outcome is announced like any finished generation (webhooks).
  const outbox = new BillingOutbox(
    path.join(config.dataDir, 'outbox'),
    async (o) => {
      const done = await applyDeferredOutcome(sql, o);
      if (done) await announceFinished(ds, notifier, done.row, log);
      return done;
    },
    log,
  );
  outbox.start(5000);
  // BILLING_SETTLE_COMMIT=async (the default): settlements do not wait for the WAL flush; the journal keeps each
  // until it is on disk and hands it to the outbox if the server may have lost it.
  const settleJournal =
    config.billingSettleCommit === 'async'
      ? new SettleJournal({ probe: () => readWalPosition(sql), spill: (outcomes) => outbox.addAll(outcomes), log })
      : undefined;
  settleJournal?.start();
  setGaugeSource(GAUGES.settlementsNotOnDisk, () => settleJournal?.waiting ?? 0);
  const leases = new GenerationLeases(asyncCommit.sql, resolveInstanceId(config.dataDir, config.instanceId));
  const generations = new GenerationService({
    leases,
    ds,
    sql,
    limiter,
    router,
    runner,
    inputs,
    storage,
    queue,
    log,
    inlineBudgetMs: options.inlineBudgetMs,
  });
  // An Idempotency-Key's attempt runs at most the inline budget (then answers with the pending generation).
  const idempotency = new IdempotencyStore(ds, {
    instanceId: leases.instanceId,
    attemptMs: (options.inlineBudgetMs ?? DEFAULT_INLINE_BUDGET_MS) + 30_000,
  });
  const carrier = carrierGateway(
    config.yookassa,
    sandboxMount ? `${sandboxMount('yookassa')}/v3` : undefined,
    `${config.dataDir}|${options.databaseUrl}`,
  );
  const refusals = new RefusalLog(ds, log);
  const payments = new PaymentService(ds, plans, log, {
    carrier,
    receipts: config.receipts,
    defaultReturnUrl: `${linkBase(config.links, null)}/`,
    sandboxPages: options.sandboxMount && new SandboxCheckoutPages(options.sandboxMount('yookassa')),
    referralBonuses: config.referrals,
  });
  payments.hub.add(webhooks);
  payments.hub.add(new RefundMail(ds, mailer, log));
  payments.hub.add({
    paymentSucceeded: (e) => void paymentsTotal.inc({ provider: e.provider, outcome: 'succeeded' }),
    paymentRefunded: (e) => void paymentsTotal.inc({ provider: e.provider, outcome: 'refunded' }),
  });
  const chat = new ChatService({
    ds,
    billing: new GenerationBilling({
      holdSql: sql,
      sql: settleJournal ? asyncCommit.sql : sql,
      journal: settleJournal,
      batch: config.billingBatch,
    }),
    limiter,
    router,
    adapters: providerAdapters,
    inputs,
    log,
    outbox,
    notifier,
    leases,
    onModelNotFound,
  });
  setGaugeSource(GAUGES.openAnswers, () => chat.openAnswers);
  cutAnswersOfClosedAccounts(accountChanges, chat, sql);
  const closeAccountGenerations = {
    closeAccount: async (userId: number) => {
      await chat.cutAccount(userId);
      await settleAccountGenerations({ sql, leases, queue, log }, userId);
    },
  };
  const adminAudit = new AdminAuditLog(ds);
  const broadcastRunner = new BroadcastRunner(ds, log, { perSecond: config.bot.broadcastPerSecond });
  const accounts = new AccountManagement(ds, storage, log, payments, closeAccountGenerations);
  return {
    config,
    log,
    ds,
    redis,
    plans,
    limiter,
    counters: pgCounters,
    apiKeys,
    accountChanges,
    catalog,
    auth,
    mailer,
    mailTransport,
    storage,
    connections,
    gate,
    router,
    notifier,
    boss,
    stopJobs: async (timeoutMs) => {
      jobQueue.quiet();
      await boss.stop({ graceful: true, timeout: timeoutMs, wait: true }).catch(() => undefined);
    },
    queue,
    generations,
    chat,
    schedules: new ScheduleService(ds, plans, generations, apiKeys, log),
    responses,
    idempotency,
    settings: new SettingsService(ds),
    profiles: new ProfileService(ds),
    usage: new UsageService(ds),
    refusals,
    accountAdmin: new AccountAdmin(ds, plans),
    adminAudit,
    revenue: new RevenueReports(ds, config.currencyRates),
    adminOrders: new AdminOrderDesk(ds, payments.refunds, adminAudit),
    adminUsers: new AdminUserDesk(ds, plans, adminAudit, { apiKeys, accounts }),
    catalogConsole: new CatalogConsole(ds, catalog, config.currencyRates, adminAudit),
    vendorHealth: () => vendorHealth(router.health()),
    deliveries: new DeliveryOutbox(ds),
    jsonStores: new JsonStores(ds),
    groupChats: new GroupChats(ds),
    answerStops,
    assistants: new AssistantService(ds),
    referrals: new ReferralService(ds, config.referrals, log),
    promos: new PromoService(ds, plans, adminAudit),
    broadcasts: new BroadcastDesk(ds, plans, adminAudit, () => broadcastRunner.kick()),
    broadcastRunner,
    preflight: new RunPreflight({ sql, limiter, router }),
    createApiKey: (userId, name, limits, by) => createApiKeyWithinQuota(ds, apiKeys, userId, name, limits, by),
    resultFiles: new ResultFiles(ds, storage),
    accounts,
    payments,
    outbox,
    readiness,
    leases,
    recoverAbandoned: (own) => recoverAbandoned({ sql, leases, queue, log }, own),
    webhooks,
    close: async () => {
      await broadcastRunner.stop();
      await refusals.flush();
      await settleJournal?.close();
      outbox.stop();
      idempotency.stop();
      jobQueue.quiet();
      await boss.stop({ graceful: true, timeout: 5000 }).catch(() => undefined);
      await asyncCommit.close().catch(() => undefined);
      await accountChanges.close();
      redis?.disconnect();
    },
  };
}
