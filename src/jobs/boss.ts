import PgBoss from 'pg-boss';
import type { Logger } from '../logger';
import { GenerationQueue } from '../core/generations/ports';

export const GENERATION_STEP = 'generation-step';

/**
 * A step is one vendor call (a submission or a poll). A worker killed mid-step leaves its job active; pg-boss
 * expires it after this long (plus at most one maintenance cycle) and retries it elsewhere: under a minute.
 */
export const STEP_EXPIRE_SECONDS = 30;
const MAINTENANCE_INTERVAL_SECONDS = 10;

export interface JobQueue {
  boss: PgBoss;
  /** From now on errors are expected (the queue is stopping): they are logged at debug level only. */
  quiet(): void;
}

export function createBoss(databaseUrl: string, log: Logger): JobQueue {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    max: 5,
    application_name: 'nebula-gen-jobs',
    maintenanceIntervalSeconds: MAINTENANCE_INTERVAL_SECONDS,
  });
  let stopping = false;
  boss.on('error', (err) => {
    if (stopping) log.debug({ err: err.message }, 'job queue error while stopping');
    else log.error({ err }, 'job queue error');
  });
  return { boss, quiet: () => (stopping = true) };
}

/** Pending generations advance in short durable steps: a crash loses at most one step, which is retried. */
export class PgBossGenerationQueue implements GenerationQueue {
  constructor(private readonly boss: PgBoss) {}

  async enqueue(generationId: number, delayMs = 0): Promise<void> {
    await this.boss.send(
      GENERATION_STEP,
      { generationId },
      {
        startAfter: new Date(Date.now() + delayMs),
        retryLimit: 5,
        retryDelay: 2,
        retryBackoff: true,
        expireInSeconds: STEP_EXPIRE_SECONDS,
      },
    );
  }
}
