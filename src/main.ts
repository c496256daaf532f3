import 'reflect-metadata';
import http from 'node:http';
import path from 'node:path';
import v8 from 'node:v8';
import type { AddressInfo } from 'node:net';
import type { RunnerHandle } from '@grammyjs/runner';
import { createApiApp } from './api/app';
import { createMetricsServer } from './api/metrics';
import type { TelegramBot } from './bot';
import { AppConfig, ConfigError, loadConfig } from './config';
import { terminateOcrWorker } from './core/providers/local';
import { PROVIDER_NAMES } from './core/providers/registry';
import { connectDatabase, Database } from './db/connect';
import { withStartupLock } from './db/startup-lock';
import { startWorkers } from './jobs/workers';
import { createLogger, Logger } from './logger';
import { keepRunningOnUnhandledRejection } from './process-guards';
import { endingModels } from './core/catalog/lifecycle';
import type { SandboxServer } from './sandbox/server';
import { createServices, Services } from './services';
import { syncConfiguredAdmins } from './core/admin/admins';
import { endingNotice, startingLine, startReport, type StartFacts } from './start-report';

/**
 * The old generation grows by half its live size between full collections instead of V8's default (up to several
 * times): under streaming load the peak resident size drops by about a fifth at the same throughput and CPU per
 * request (bench/README.md). It is read at every collection, so setting it at start works however the process
 * was launched; `node --heap-growing-percent=<n> dist/src/main.js` keeps the operator's own value.
 */
function tuneHeapGrowth(): void {
  if (!process.execArgv.some((a) => a.startsWith('--heap-growing-percent'))) v8.setFlagsFromString('--heap-growing-percent=50');
}

function readConfig(): AppConfig {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/**
 * Starts the loopback sandbox upstream when at least one provider will use it. The vendor fakes load only then
 * (memory: a production process without SANDBOX keeps none of their code).
 */
async function maybeStartSandbox(config: AppConfig): Promise<SandboxServer | undefined> {
  const needed = PROVIDER_NAMES.some((p) => p !== 'local' && config.providers.vendors[p].length === 0) || !config.yookassa.shopId;
  if (!needed || !config.sandboxAllowed) return undefined;
  /* eslint-disable @typescript-eslint/no-require-imports -- deferred loads */
  const { startSandbox } = require('./sandbox/server') as typeof import('./sandbox/server');
  const { sandboxHandlers } = require('./sandbox/handlers') as typeof import('./sandbox/handlers');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return startSandbox(sandboxHandlers);
}

/** Each vendor's mode, in detail: the first screen has one line for them all (start-report.ts). */
function logProviderModes(services: Services, log: Logger): StartFacts['vendors'] {
  return PROVIDER_NAMES.map((provider) => {
    const info = services.connections.info(provider);
    log.debug({ provider, baseUrl: info.baseUrl, mode: info.mode }, `${provider}: ${info.mode}`);
    return { provider, mode: info.mode };
  });
}

/** Models past or near their shutdown, in detail at debug on every start; the report names the new ones once. */
function endingModelsToTell(config: AppConfig, log: Logger): StartFacts['endingModels'] {
  const ending = endingModels();
  for (const m of ending) {
    const fate = m.replacement ? `requests are served by ${m.replacement}` : 'it has no replacement: its requests answer 410 model_retired';
    const when = m.shutdownAt ? ` (shutdown ${m.shutdownAt})` : '';
    log.debug(
      m,
      m.retired ? `model ${m.slug} is retired${when}: ${fate}` : `model ${m.slug} is ending${when}: plan its replacement; then ${fate}`,
    );
  }
  return endingNotice(config.dataDir, ending);
}

/** This process as seen from itself: loopback when it listens on every interface. */
function selfOrigin(config: AppConfig, port: number): string {
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  return `http://${wildcard ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
}

function listenUrl(server: http.Server, config: AppConfig): string {
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host}:${port}`;
}

/** A started service: what a signal stops. */
interface Running {
  shutdown(signal: string): Promise<void>;
}

async function start(config: AppConfig, log: Logger, stopRequested: () => boolean): Promise<Running> {
  const db = await connectDatabase(config, log);
  const sandbox = await maybeStartSandbox(config);
  let services: Services | undefined;
  let migrationsApplied = 0;
  try {
    // One instance at a time migrates and sets up the job queues: any number may start at once.
    services = await withStartupLock(db.dataSource, async () => {
      const applied = await db.dataSource.runMigrations({ transaction: 'each' });
      migrationsApplied = applied.length;
      log.debug({ applied: applied.map((m) => m.name) }, 'database migrated');
      const admins = await syncConfiguredAdmins(db.dataSource, config.bot.adminChatIds);
      if (admins.length > 0) log.info({ users: admins }, 'accounts of ADMIN_CHAT_IDS made admins');
      const built = createServices(config, log, db.dataSource, { databaseUrl: db.url, sandboxMount: sandbox?.mountUrl });
      await built.boss.start();
      return built;
    });
  } catch (err) {
    await sandbox?.close();
    await db.close();
    throw err;
  }
  return startServing(config, log, db, sandbox, services, stopRequested, migrationsApplied);
}

async function startServing(
  config: AppConfig,
  log: Logger,
  db: Database,
  sandbox: SandboxServer | undefined,
  services: Services,
  stopRequested: () => boolean,
  migrationsApplied: number,
): Promise<Running> {
  const vendors = logProviderModes(services, log);
  // The operator's overrides and the last vendor check decide what is retired: read them before warning.
  await services.catalog.load();
  const ending = endingModelsToTell(config, log);
  let workersRunning = false;
  services.readiness.addCheck('job_queue', async () => {
    if (!workersRunning) throw new Error('job workers are not running');
  });
  await services.outbox
    .replay()
    .catch((err) => log.warn({ err: (err as Error).message }, 'deferred billing replay failed; retried on a timer'));
  // What this instance's previous process left running (killed, crashed) is settled now, not at its deadline.
  await services.recoverAbandoned(true).catch((err) => log.error({ err }, 'recovering abandoned generations failed'));
  await services.idempotency
    .releaseInstance(services.leases.instanceId)
    .catch((err) => log.error({ err }, 'releasing the idempotency keys of the previous process failed'));
  await withStartupLock(db.dataSource, () => startWorkers(services.boss, services));
  workersRunning = true;

  // The Telegram bot (BOT_TOKEN): long polling, or updates through POST /telegram/webhook (BOT_MODE=webhook).
  // grammY and the bot's screens load only with a BOT_TOKEN (memory: an API-only process keeps none of it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a deferred load
  const botModule = config.bot.token ? (require('./bot') as typeof import('./bot')) : undefined;
  const bot: TelegramBot | undefined = config.bot.token && botModule ? botModule.createBot(config.bot.token, services) : undefined;
  bot?.attach();
  const app = createApiApp(services, {
    telegramWebhook:
      bot && botModule && config.bot.mode === 'webhook' ? botModule.telegramWebhook(bot, config.bot.webhookSecret) : undefined,
  });
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  // A burst of new connections (thousands of streams opened at once) waits in the kernel's queue, not reset.
  await new Promise<void>((resolve) => server.listen({ port: config.port, host: config.host, backlog: config.listenBacklog }, resolve));
  // METRICS_PORT: /metrics on a listener of its own (keep that port off the public network).
  const metricsServer = config.metrics.port ? createMetricsServer({ token: config.metrics.token }) : undefined;
  if (metricsServer) {
    await new Promise<void>((resolve) => metricsServer.listen(config.metrics.port, config.host, resolve));
    metricsServer.unref();
    log.info({ port: config.metrics.port }, 'metrics listening');
  }
  services.readiness.set('ready');
  // The sandbox carrier sends its notifications to this process (a live YooKassa shop sets the URL in its dashboard).
  const port = (server.address() as AddressInfo).port;
  const paymentsSandbox = await services.payments
    .connectSandboxNotifications(`${selfOrigin(config, port)}/api/v2/payments/carrier/notifications`)
    .catch((err: unknown) => {
      log.error({ err }, 'sandbox carrier notifications not connected');
      return false;
    });
  const url = config.publicUrl ?? listenUrl(server, config);
  const report = startReport({
    url,
    migrationsApplied,
    vendors,
    paymentsSandbox,
    bot: config.bot.token ? config.bot.mode : 'off',
    mail: config.mail.smtpUrl ? 'smtp' : 'log',
    production: config.env === 'production',
    endingModels: ending,
  });
  for (const line of report) log[line.level](line.msg);

  let polling: RunnerHandle | undefined;
  // The bot starts in the background and retries while Telegram (or TELEGRAM_API_ROOT) is unreachable, so the
  // HTTP API never waits on it.
  const startBot = async (attempt = 1): Promise<void> => {
    if (!bot || !botModule || stopRequested()) return;
    try {
      if (config.bot.mode === 'polling') polling = await botModule.startPolling(bot);
      else if (config.bot.webhookUrl) await botModule.registerWebhook(bot, config.bot.webhookUrl, config.bot.webhookSecret);
      else
        log.warn(
          'BOT_MODE=webhook without PUBLIC_URL: point the bot webhook at <public url>/telegram/webhook yourself (with BOT_WEBHOOK_SECRET)',
        );
    } catch (err) {
      const delay = Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5));
      log.error(
        { err, retryInMs: delay },
        'Telegram bot could not start (check BOT_TOKEN and TELEGRAM_API_ROOT); the HTTP API keeps running',
      );
      setTimeout(() => void startBot(attempt + 1), delay).unref();
    }
  };
  void startBot();

  // Shutdown: /health/ready answers 503 and no new job is taken at once; open answers get SHUTDOWN_DRAIN_MS to
  // finish, then are aborted and billed on what was delivered. The embedded PostgreSQL (if any) stops last.
  return {
    shutdown: async (signal: string) => {
      services.readiness.set('draining');
      log.info({ signal, drainMs: config.shutdownDrainMs }, 'shutting down: draining');
      const jobsStopped = services.stopJobs(config.shutdownDrainMs);
      if (polling?.isRunning()) await polling.stop().catch(() => undefined);
      // The listener stays open during the drain, so probes see 503 (and new requests are refused with 503).
      await services.chat.drain(config.shutdownDrainMs);
      metricsServer?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Streams have ended; requests still running past the drain (say, an image call) are cut.
      await Promise.race([closed, new Promise((r) => setTimeout(r, 2000).unref())]);
      server.closeAllConnections();
      await jobsStopped;
      await bot?.stop();
      await services.close();
      await sandbox?.close();
      await terminateOcrWorker().catch(() => undefined);
      await db.close();
    },
  };
}

/**
 * The signal handlers come first: a SIGTERM at any moment, even while the service still starts, waits for the
 * start to finish, then drains and exits 0. A hard exit follows only if something still hangs.
 */
function main(): void {
  tuneHeapGrowth();
  const config = readConfig();
  const log = createLogger(config.logLevel);
  keepRunningOnUnhandledRejection(log);
  let signalled = false;
  // Filled in right after the handlers exist; a handler reads it when it runs.
  const service: { start?: Promise<Running> } = {};
  const stop = async (signal: string) => {
    if (signalled) return;
    signalled = true;
    log.info({ signal }, 'stop requested');
    const force = setTimeout(() => {
      log.error('shutdown did not finish in time: exiting');
      process.exit(1);
    }, config.shutdownDrainMs + 60_000).unref();
    const running = await service.start?.catch(() => undefined);
    if (!running) return; // the start failed: its own error exits
    await running.shutdown(signal);
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  log.debug({ pid: process.pid }, 'starting');
  log.info(startingLine(config.databaseUrl ? { url: config.databaseUrl } : { embeddedDir: path.join(config.dataDir, 'pg') }));
  service.start = start(config, log, () => signalled);
  service.start.catch((err: Error) => {
    process.stderr.write(`fatal: ${err.stack ?? err.message}\n`);
    process.exit(1);
  });
}

main();
