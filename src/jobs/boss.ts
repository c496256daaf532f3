import PgBoss from 'pg-boss';
import type { Logger } from '../logger';
import { GenerationQueue } from '../core/generations/ports';

export const GENERATION_STEP = 'generation-step';

export function createBoss(databaseUrl: string, log: Logger): PgBoss {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    max: 5,
    application_name: 'nebula-gen-jobs',
  });
  boss.on('error', (err) => log.error({ err }, 'job queue error'));
  return boss;
}

/** Pending generations advance in short durable steps: a crash loses at most one step, which is retried. */
export class PgBossGenerationQueue implements GenerationQueue {
  constructor(private readonly boss: PgBoss) {}

  async enqueue(generationId: number, delayMs = 0): Promise<void> {
    await this.boss.send(
      GENERATION_STEP,
      { generationId },
      { startAfter: new Date(Date.now() + delayMs), retryLimit: 5, retryDelay: 2, retryBackoff: true, expireInSeconds: 600 },
    );
  }
}
