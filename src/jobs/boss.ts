import PgBoss from 'pg-boss';
import type { Logger } from '../logger';
import { GenerationQueue } from '../core/generations/ports';
import type { BackgroundQueue } from '../core/responses/stored-responses';

export const GENERATION_STEP = 'generation-step';
/** A background response of /v1/responses, run once (a retry after a crash finds it running and fails it). */
export const RESPONSE_RUN = 'response-run';
/** A background answer may think for a long time: its job is alive for the chat deadline and a minute. */
const RESPONSE_RUN_EXPIRE_SECONDS = 31 * 60;

interface JobOutcomeMethods {
  complete(...args: unknown[]): Promise<unknown>;
  fail(...args: unknown[]): Promise<unknown>;
  emit(event: 'error', err: unknown): boolean;
}

/**
 * pg-boss 10.4 records a worker batch's outcome without awaiting it (`this.complete(…)` / `this.fail(…)` in
 * manager.js `watch`), so a PostgreSQL outage at that moment (57P03 during a restart, a refused connection) was an
 * unhandled rejection, which ends a Node process. Every complete/fail promise gets a handler that reports the
 * failure as the queue's `error` event; a caller that awaits one still sees it reject. The job itself is safe: an
 * outcome not recorded leaves it active, and pg-boss expires and retries it.
 */
function guardUnawaitedOutcomes(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the class pg-boss builds its private manager from
  const { prototype } = require('pg-boss/src/manager') as { prototype: JobOutcomeMethods & { __outcomesGuarded?: true } };
  if (prototype.__outcomesGuarded) return;
  for (const name of ['complete', 'fail'] as const) {
    const original = prototype[name];
    prototype[name] = function (this: JobOutcomeMethods, ...args: unknown[]) {
      const outcome = original.apply(this, args);
      outcome.catch((err: unknown) => this.emit('error', err));
      return outcome;
    };
  }
  prototype.__outcomesGuarded = true;
}
guardUnawaitedOutcomes();

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

/** Background responses run as durable jobs: queued before the request that makes them is answered. */
export class PgBossResponseQueue implements BackgroundQueue {
  constructor(private readonly boss: PgBoss) {}

  async enqueue(responseId: string): Promise<void> {
    const job = await this.boss.send(
      RESPONSE_RUN,
      { responseId },
      { retryLimit: 1, retryDelay: 1, expireInSeconds: RESPONSE_RUN_EXPIRE_SECONDS },
    );
    // pg-boss answers null instead of failing when the queue does not exist yet (the workers create it at start).
    if (job === null) throw new Error(`the job queue ${RESPONSE_RUN} is not ready`);
  }
}
