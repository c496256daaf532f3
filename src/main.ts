import 'reflect-metadata';
import http from 'node:http';
import { createApiApp } from './api/app';
import { ConfigError, loadConfig } from './config';
import { connectDatabase } from './db/connect';
import { createLogger } from './logger';
import { createServices } from './services';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const db = await connectDatabase(config, log);
  const applied = await db.dataSource.runMigrations({ transaction: 'each' });
  log.info({ applied: applied.map((m) => m.name) }, 'database migrated');

  const services = createServices(config, log, db.dataSource);
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
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await services.close();
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
