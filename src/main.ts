import 'reflect-metadata';
import http from 'node:http';
import { createApiApp } from './api/app';
import { AppConfig, ConfigError, loadConfig } from './config';
import { terminateOcrWorker } from './core/providers/local';
import { PROVIDER_NAMES } from './core/providers/types';
import { connectDatabase } from './db/connect';
import { startWorkers } from './jobs/workers';
import { createLogger, Logger } from './logger';
import { sandboxHandlers } from './sandbox/handlers';
import { SandboxServer, startSandbox } from './sandbox/server';
import { createServices, Services } from './services';

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

/** Starts the loopback sandbox upstream when at least one provider will use it. */
async function maybeStartSandbox(config: AppConfig): Promise<SandboxServer | undefined> {
  const needed = PROVIDER_NAMES.some((p) => p !== 'local' && !config.providers[p].apiKey);
  return needed && config.sandboxAllowed ? startSandbox(sandboxHandlers) : undefined;
}

function logProviderModes(services: Services, log: Logger): void {
  for (const provider of PROVIDER_NAMES) {
    const info = services.connections.info(provider);
    if (info.mode === 'sandbox') {
      log.warn({ provider, baseUrl: info.baseUrl }, `${provider}: no ${provider.toUpperCase()}_API_KEY, using the built-in SANDBOX upstream (synthetic results)`);
    } else if (info.mode === 'unavailable') {
      log.warn({ provider }, `${provider}: no credentials; its models answer 503 (set ${provider.toUpperCase()}_API_KEY, or SANDBOX=1)`);
    } else {
      log.info({ provider, baseUrl: info.baseUrl }, `${provider}: live`);
    }
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const log = createLogger(config.logLevel);
  const db = await connectDatabase(config, log);
  const applied = await db.dataSource.runMigrations({ transaction: 'each' });
  log.info({ applied: applied.map((m) => m.name) }, 'database migrated');

  const sandbox = await maybeStartSandbox(config);
  const services = createServices(config, log, db.dataSource, {
    databaseUrl: db.url,
    sandboxMount: sandbox?.mountUrl,
  });
  logProviderModes(services, log);
  await services.boss.start();
  await startWorkers(services.boss, services);

  const app = createApiApp(services);
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  log.info({ port: config.port }, 'HTTP API listening');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000).unref();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    await services.close();
    await sandbox?.close();
    await terminateOcrWorker().catch(() => undefined);
    await db.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err: Error) => {
  process.stderr.write(`fatal: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
