import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { createDataSource } from '../../src/db/data-source';
import { startWorkers } from '../../src/jobs/workers';
import { createServices, Services } from '../../src/services';

/** One service process on a shared database: its own pool, its own pg-boss and workers. */
export interface Instance {
  services: Services;
  stop(): Promise<void>;
}

export async function startInstance(databaseUrl: string, env: Record<string, string> = {}): Promise<Instance> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-wh-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    JWT_SECRET: 'test-jwt-secret-that-is-long-enough-0123456789',
    API_KEY_PEPPER: 'test-pepper',
    WEBHOOK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const ds = createDataSource(databaseUrl, { poolSize: 5 });
  await ds.initialize();
  const services = createServices(config, pino({ level: 'silent' }), ds, { databaseUrl });
  await services.boss.start();
  await startWorkers(services.boss, services);
  return {
    services,
    async stop() {
      await services.close();
      await ds.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
export async function newAccount(services: Services): Promise<number> {
  const user = await createUser(services.ds, new PlanDirectory(services.ds), {
    name: `Hook ${++counter}`,
    email: `hook${counter}-${process.pid}-${Date.now()}@example.com`,
    plan: 'free',
  });
  return user.id;
}
