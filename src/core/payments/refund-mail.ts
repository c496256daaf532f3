import { DataSource } from 'typeorm';
import type { Logger } from '../../logger';
import type { Mailer } from '../accounts/mailer';
import type { PaymentListener, PaymentRefundedEvent } from './ports';

/** The buyer of a carrier (card) payment hears of its refund by mail; Stars buyers hear from the bot. */
export class RefundMail implements PaymentListener {
  constructor(
    private readonly ds: DataSource,
    private readonly mailer: Mailer,
    private readonly log: Logger,
  ) {}

  async paymentRefunded(e: PaymentRefundedEvent): Promise<void> {
    if (e.provider === 'stars') return;
    const [row] = await this.ds.query<{ email: string | null }[]>('SELECT email FROM users WHERE id = $1', [e.userId]);
    if (!row?.email) {
      this.log.info({ orderId: e.orderId }, 'refunded buyer has no email: told through the payment.refunded webhook only');
      return;
    }
    await this.mailer
      .send({
        to: row.email,
        subject: `Refund of your payment: ${e.articleTitle}`,
        text:
          `Your payment of ${e.amount.toFixed(2)} ${e.currency} for ${e.articleTitle} (order ${e.reference}) was refunded ` +
          `to the card you paid with. Banks usually show the money within a few days.\n\n` +
          `${e.tokensTaken} tokens were taken back from your balance` +
          (e.tokensSpent > 0 ? `; ${e.tokensSpent} had already been used and were kept off the refund of tokens.\n` : '.\n'),
      })
      .catch((err: Error) => this.log.error({ err: err.message, orderId: e.orderId }, 'refund mail could not be sent'));
  }
}
