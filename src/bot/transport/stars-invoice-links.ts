import { GrammyError, type Api } from 'grammy';
import { PaymentProviderRejectedError, PaymentProviderUnavailableError } from '../../core/payments/errors';
import type { StarsInvoice, StarsInvoiceLinks } from '../../core/payments/stars';

/**
 * Stars invoice links through the Bot API (createInvoiceLink): the core's port for purchases the dashboard starts
 * inside Telegram. A plan is a 30-day subscription link, as in the bot's own /buy.
 */
export class TelegramInvoiceLinks implements StarsInvoiceLinks {
  constructor(private readonly api: Api) {}

  async create(invoice: StarsInvoice): Promise<string> {
    try {
      return await this.api.createInvoiceLink(
        invoice.title,
        invoice.description,
        invoice.payload,
        '',
        invoice.currency,
        [{ label: invoice.title, amount: invoice.amount }],
        invoice.subscriptionPeriod ? { subscription_period: invoice.subscriptionPeriod } : {},
      );
    } catch (err) {
      if (err instanceof GrammyError && err.error_code !== 429 && err.error_code < 500) {
        throw new PaymentProviderRejectedError('stars', err.description);
      }
      throw new PaymentProviderUnavailableError('stars', (err as Error).message);
    }
  }
}
