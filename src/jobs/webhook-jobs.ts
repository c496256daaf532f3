import PgBoss from 'pg-boss';
import type { WebhookQueue } from '../core/webhooks/ports';
import type { WebhookService } from '../core/webhooks/service';
import type { Logger } from '../logger';

export const WEBHOOK_DELIVERY = 'webhook-delivery';
const WEBHOOK_SWEEP = 'webhooks-sweep';
const WEBHOOK_PURGE = 'webhooks-purge';

/** Attempts are pg-boss jobs: they survive a restart, and each job is fetched by one instance only. */
export class PgBossWebhookQueue implements WebhookQueue {
  constructor(private readonly boss: PgBoss) {}

  async enqueue(deliveryId: number, delayMs = 0): Promise<void> {
    await this.boss.send(
      WEBHOOK_DELIVERY,
      { deliveryId },
      { startAfter: new Date(Date.now() + delayMs), retryLimit: 3, retryDelay: 5, expireInSeconds: 120 },
    );
  }
}

export interface WebhookWorkerOptions {
  /** How often an idle worker asks for due attempts (pg-boss allows 0.5 s at least). */
  pollingIntervalSeconds?: number;
}

/** Registers the delivery worker and the sweep that re-triggers deliveries whose job was lost. */
export async function startWebhookWorkers(
  boss: PgBoss,
  webhooks: WebhookService,
  log: Logger,
  options: WebhookWorkerOptions = {},
): Promise<void> {
  for (const name of [WEBHOOK_DELIVERY, WEBHOOK_SWEEP, WEBHOOK_PURGE]) await boss.createQueue(name);
  await boss.work<{ deliveryId: number }>(
    WEBHOOK_DELIVERY,
    { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 0.5, batchSize: 8 },
    async (jobs) => {
      await Promise.all(jobs.map((job) => webhooks.attempt(job.data.deliveryId)));
    },
  );
  await boss.work(WEBHOOK_SWEEP, async () => {
    const requeued = await webhooks.sweep();
    if (requeued > 0) log.warn({ requeued }, 'overdue webhook deliveries were triggered again');
  });
  await boss.work(WEBHOOK_PURGE, async () => {
    const purged = await webhooks.purgeFinished();
    if (purged > 0) log.info({ purged }, 'old webhook deliveries removed');
  });
  await boss.schedule(WEBHOOK_SWEEP, '* * * * *');
  await boss.schedule(WEBHOOK_PURGE, '17 * * * *');
}
