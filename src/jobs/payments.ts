import PgBoss from 'pg-boss';
import type { RefundQueue } from '../core/payments/ports';
import type { Services } from '../services';

export const PAYMENT_REFUND = 'payment-refund';
export const PAYMENTS_EXPIRE = 'payments-expire';

/** Refund requests as durable jobs: retried with exponential backoff (429, 5xx, no answer) for about half a day. */
export class PgBossRefundQueue implements RefundQueue {
  constructor(private readonly boss: PgBoss) {}

  async enqueue(orderId: number): Promise<void> {
    await this.boss.send(
      PAYMENT_REFUND,
      { orderId },
      { singletonKey: `refund:${orderId}`, retryLimit: 12, retryDelay: 5, retryBackoff: true, expireInSeconds: 300 },
    );
  }
}

/** The refund job, the expiry of stale pending orders (every 5 minutes), and a sweep of refund requests left open. */
export async function startPaymentWorkers(boss: PgBoss, services: Services): Promise<void> {
  const { payments, log } = services;
  for (const name of [PAYMENT_REFUND, PAYMENTS_EXPIRE]) await boss.createQueue(name);
  const queue = new PgBossRefundQueue(boss);
  payments.refunds.useQueue(queue);

  await boss.work<{ orderId: number }>(PAYMENT_REFUND, async (jobs) => {
    for (const job of jobs) {
      const result = await payments.refunds.process(job.data.orderId, { rethrow: true });
      log.info({ orderId: job.data.orderId, state: result.state }, 'refund job');
    }
  });

  await boss.work(PAYMENTS_EXPIRE, async () => {
    const expired = await payments.expireStale();
    if (expired > 0) log.info({ expired }, 'stale pending orders expired');
    for (const orderId of await payments.refunds.openRequests()) await queue.enqueue(orderId);
  });
  await boss.schedule(PAYMENTS_EXPIRE, '*/5 * * * *');
}
