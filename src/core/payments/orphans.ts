import { DataSource } from 'typeorm';
import type { PaymentProviderName } from '../../db/entities';
import type { Logger } from '../../logger';
import { majorAmount } from './articles';
import { PaymentProviderRejectedError, PaymentProviderUnavailableError } from './errors';
import type { OrphanCharge, OrphanPaymentEvent, OrphanReason, PaymentHub, RefundGateway } from './ports';

/**
 * Money that came in for no open order: a checkout paid after its account was deleted (the order went with it, or
 * was canceled), a Stars renewal of a deleted account's subscription, a payment naming an order we never made. It
 * is given back at once, recorded (`orphan_payments`), and the admins are told what happened, once per payment.
 */
export class OrphanPayments {
  constructor(
    private readonly ds: DataSource,
    private readonly gateway: (provider: PaymentProviderName) => RefundGateway | undefined,
    private readonly hub: PaymentHub,
    private readonly log: Logger,
  ) {}

  /**
   * Refunds the charge at its provider (idempotent there: a second notification of it refunds nothing more) and
   * tells the admins. With `notificationRetried` (YooKassa retries a notification for 24 h until it is answered 200),
   * a provider that cannot be reached now is thrown (PaymentProviderUnavailableError), so the retry asks again;
   * otherwise (Telegram sends a payment once) the admins are told to refund it by hand.
   */
  async refund(
    provider: PaymentProviderName,
    charge: OrphanCharge,
    reason: OrphanReason,
    reference: string | null,
    options: { notificationRetried: boolean },
  ): Promise<OrphanPaymentEvent> {
    const base = {
      provider,
      chargeId: charge.chargeId,
      amount: majorAmount(charge.amountMinor, charge.currency),
      currency: charge.currency,
    };
    const gateway = this.gateway(provider);
    let event: OrphanPaymentEvent;
    try {
      if (!gateway?.refundCharge)
        throw new PaymentProviderRejectedError(provider, 'this provider cannot refund a payment without an order');
      const outcome = await gateway.refundCharge(charge);
      if (outcome.state === 'canceled') throw new PaymentProviderRejectedError(provider, `refund canceled: ${outcome.reason}`);
      event = { ...base, reference, reason, outcome: outcome.state === 'pending' ? 'refund_pending' : 'refunded' };
      this.log.warn({ ...event }, 'a payment that fulfilled no order was refunded');
    } catch (err) {
      if (err instanceof PaymentProviderUnavailableError && options.notificationRetried) throw err;
      event = { ...base, reference, reason, outcome: 'refund_failed', error: (err as Error).message.slice(0, 300) };
      this.log.error({ ...event }, 'a payment that fulfilled no order could NOT be refunded: refund it by hand');
    }
    if (await this.record(charge, event)) await this.hub.orphanPayment(event);
    return event;
  }

  /** Keeps the payment and its refund's outcome. @returns true when this is news (a first record, or a new outcome) */
  private async record(charge: OrphanCharge, e: OrphanPaymentEvent): Promise<boolean> {
    const rows = await this.ds.query<{ news: boolean }[]>(
      `INSERT INTO orphan_payments (provider, charge_id, amount_minor, currency, reference, reason, outcome, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (provider, charge_id) DO UPDATE SET outcome = EXCLUDED.outcome, error = EXCLUDED.error, updated_at = now()
         WHERE orphan_payments.outcome IS DISTINCT FROM EXCLUDED.outcome
       RETURNING true AS news`,
      [e.provider, e.chargeId, charge.amountMinor, charge.currency, e.reference, e.reason, e.outcome, e.error ?? null],
    );
    return rows.length > 0;
  }
}
