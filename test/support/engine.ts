import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { Actor } from '../../src/core/generations/service';
import { PlanSlug } from '../../src/core/catalog/types';
import { startWorkers } from '../../src/jobs/workers';
import { createLogger } from '../../src/logger';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import { SandboxHandlers, SandboxServer, startSandbox } from '../../src/sandbox/server';
import { createServices, Services } from '../../src/services';
import { terminateOcrWorker } from '../../src/core/providers/local';
import { createTestDatabase, TestDatabase } from './databases';

export interface Engine {
  db: TestDatabase;
  sandbox: SandboxServer;
  services: Services;
  dataDir: string;
  /** Starts pg-boss and the job handlers (the "worker process"). */
  startWorkers(): Promise<void>;
  /** A second process's view: fresh services on the same database, as after a restart. */
  restart(): Promise<Services>;
  actor(plan: PlanSlug, tokens?: { plan?: number; bonus?: number }): Promise<Actor>;
  close(): Promise<void>;
}

export async function startEngine(env: Record<string, string> = {}, opts: { handlers?: SandboxHandlers } = {}): Promise<Engine> {
  const db = await createTestDatabase();
  const sandbox = await startSandbox({ ...sandboxHandlers, ...opts.handlers });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ng-engine-'));
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const log = createLogger('silent');
  const build = () =>
    createServices(config, log, db.dataSource, {
      databaseUrl: db.url,
      sandboxMount: sandbox.mountUrl,
      allowPrivateHosts: [new URL(sandbox.origin).host],
    });
  const all: Services[] = [];
  let services = build();
  all.push(services);
  const plans = new PlanDirectory(db.dataSource);
  return {
    db,
    sandbox,
    dataDir,
    get services() {
      return services;
    },
    async startWorkers() {
      await services.boss.start();
      await startWorkers(services.boss, services);
    },
    async restart() {
      await services.close();
      services = build();
      all.push(services);
      return services;
    },
    async actor(plan, tokens = {}) {
      const user = await createUser(db.dataSource, plans, {
        name: `t-${plan}`,
        plan,
        planTokens: tokens.plan,
        bonusTokens: tokens.bonus,
      });
      return { user, plan: await plans.get(plan) };
    },
    async close() {
      for (const s of all) await s.close();
      await terminateOcrWorker();
      await sandbox.close();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
