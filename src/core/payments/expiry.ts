import { DataSource } from 'typeorm';
import { PaymentOrderEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import type { CarrierCheckout } from './carrier';

/**
 * pending -> expired for orders past `expires_at`. A carrier order is first re-read from the provider: one paid
 * meanwhile is fulfilled and one canceled is canceled instead; when the provider cannot be asked it waits for the
 * next run. Returns the number of orders expired.
 */
export async function expireStaleOrders(ds: DataSource, carrier: CarrierCheckout, log: Logger, limit = 200): Promise<number> {
  const stale = await ds
    .getRepository(PaymentOrderEntity)
    .createQueryBuilder('o')
    .where(`o.status = 'pending' AND o.expires_at < now()`)
    .orderBy('o.id')
    .take(limit)
    .getMany();
  let expired = 0;
  for (const order of stale) {
    if (order.provider !== 'stars' && order.providerPaymentId && carrier.provider) {
      try {
        const payment = await carrier.provider.getPayment(order.providerPaymentId);
        if (payment && payment.status !== 'pending') {
          await carrier.sync(order, payment);
          continue;
        }
      } catch (err) {
        log.warn({ orderId: order.id, err: (err as Error).message }, 'stale carrier order: provider not reachable, kept for the next run');
        continue;
      }
    }
    const rows = await ds.query<unknown[]>(
      `WITH u AS (UPDATE payment_orders SET status = 'expired', updated_at = now() WHERE id = $1 AND status = 'pending' RETURNING id) SELECT id FROM u`,
      [order.id],
    );
    expired += rows.length;
  }
  return expired;
}
