import { GrammyError, type Api } from 'grammy';
import { PaymentProviderRejectedError, PaymentProviderUnavailableError } from '../../core/payments/errors';
import type { OrderRecord } from '../../core/payments/orders';
import type { OrphanCharge, RefundGateway, RefundOutcome } from '../../core/payments/ports';

/** Telegram Stars refunds through the Bot API (refundStarPayment): the core's refund port for `stars` orders. */
export class TelegramStarsGateway implements RefundGateway {
  constructor(private readonly api: Api) {}

  async refund(order: OrderRecord, buyer: { telegramId: string | null }): Promise<RefundOutcome> {
    if (!buyer.telegramId || !order.providerChargeId)
      throw new PaymentProviderRejectedError('stars', 'the order has no Telegram buyer or charge id');
    return this.refundStars(buyer.telegramId, order.providerChargeId);
  }

  /** A Stars payment that fulfilled no order (say, a renewal of a deleted account's subscription). */
  async refundCharge(charge: OrphanCharge): Promise<RefundOutcome> {
    if (!charge.telegramId) throw new PaymentProviderRejectedError('stars', 'the payment has no Telegram buyer');
    return this.refundStars(charge.telegramId, charge.chargeId);
  }

  private async refundStars(telegramId: string, chargeId: string): Promise<RefundOutcome> {
    try {
      await this.api.refundStarPayment(Number(telegramId), chargeId);
      return { state: 'succeeded' };
    } catch (err) {
      if (err instanceof GrammyError) {
        if (/CHARGE_ALREADY_REFUNDED/i.test(err.description)) return { state: 'already_refunded' };
        if (err.error_code === 429 || err.error_code >= 500) throw new PaymentProviderUnavailableError('stars', err.description);
        throw new PaymentProviderRejectedError('stars', err.description);
      }
      // Network failure (HttpError): Telegram may or may not have refunded; asking again is safe.
      throw new PaymentProviderUnavailableError('stars', (err as Error).message);
    }
  }

  async cancelSubscription(subscription: OrderRecord, buyer: { telegramId: string | null }): Promise<void> {
    if (!buyer.telegramId || !subscription.providerChargeId) return;
    await this.api.editUserStarSubscription(Number(buyer.telegramId), subscription.providerChargeId, true);
  }
}
