import { DataSource } from 'typeorm';
import { PaymentOrderEntity, SavedPaymentMethodEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import { ArticleCatalog, majorAmount } from './articles';
import { CarrierNotConfiguredError, InvalidNotificationError, UnknownPaymentError } from './errors';
import { cancelOrder, createOrder, type OrderRecord } from './orders';
import type { CarrierGateway, CarrierPayment } from './ports';
import type { OrphanPayments } from './orphans';
import type { PaymentSettlement } from './settlement';
import { contactOf, receiptFor, type ReceiptSettings } from './receipts';
import type { SandboxCheckoutPages } from './sandbox-checkout';
import { notificationSchema } from './yookassa/wire';

/** 201 of initiate and quick-checkout (decisions.md). */
export interface CheckoutView {
  order_id: number;
  status: OrderRecord['status'];
  article_id: string;
  amount: number;
  currency: string;
  confirmation_url: string | null;
}

/** `refunded`: the payment succeeded for no open order of ours and was given back (see OrphanPayments). */
export type NotificationOutcome = 'fulfilled' | 'duplicate' | 'canceled' | 'pending' | 'ignored' | 'mismatch' | 'refunded';

const toCheckoutView = (o: OrderRecord): CheckoutView => ({
  order_id: o.id,
  status: o.status,
  article_id: o.articleId,
  amount: majorAmount(o.amountMinor, o.currency),
  currency: o.currency,
  confirmation_url: o.status === 'pending' ? o.confirmationUrl : null,
});

/** The web checkout through the carrier: create the order and the provider payment, then believe only the provider's API. */
export class CarrierCheckout {
  constructor(
    private readonly ds: DataSource,
    private readonly catalog: ArticleCatalog,
    private readonly settlement: PaymentSettlement,
    private readonly orphans: OrphanPayments,
    private readonly gateway: CarrierGateway | undefined,
    private readonly defaultReturnUrl: string,
    private readonly log: Logger,
    private readonly receipts?: ReceiptSettings | null,
    private readonly sandboxPages?: SandboxCheckoutPages,
  ) {}

  get provider(): CarrierGateway | undefined {
    return this.gateway;
  }

  private require(): CarrierGateway {
    if (!this.gateway) throw new CarrierNotConfiguredError();
    return this.gateway;
  }

  /**
   * Creates the order and the provider payment (redirect confirmation, the order reference in `metadata`, the
   * order reference as Idempotence-Key so a retried request never makes a second payment). On the sandbox carrier,
   * `publicOrigin` (where the buyer reached this service) carries the confirmation page (SandboxCheckoutPages).
   * @throws UnknownArticleError, CarrierNotConfiguredError, PaymentProviderUnavailableError, PaymentProviderRejectedError
   */
  async initiate(
    userId: number,
    articleId: string,
    options: { returnUrl?: string; savePaymentMethod?: boolean; paymentMethodId?: string; publicOrigin?: string } = {},
  ): Promise<CheckoutView> {
    const article = await this.catalog.require(articleId);
    const gateway = this.require();
    // With receipts on, an account without an email or phone is refused before any order exists.
    const receipt = this.receipts
      ? receiptFor(
          await contactOf(this.ds, userId),
          { title: article.title, amountMinor: article.priceMinor, currency: article.currency },
          this.receipts,
        )
      : undefined;
    const order = await createOrder(this.ds, { userId, article, provider: gateway.name, savePaymentMethod: options.savePaymentMethod });
    let payment: CarrierPayment;
    try {
      payment = await gateway.createPayment({
        idempotenceKey: order.reference,
        amountMinor: order.amountMinor,
        currency: order.currency,
        description: `${article.title} (${order.reference})`,
        orderReference: order.reference,
        returnUrl: options.returnUrl ?? this.defaultReturnUrl,
        savePaymentMethod: options.savePaymentMethod ?? false,
        paymentMethodId: options.paymentMethodId,
        receipt,
      });
    } catch (err) {
      await cancelOrder(this.ds, order.id);
      throw err;
    }
    const confirmationUrl =
      payment.confirmationUrl && this.sandboxPages && options.publicOrigin
        ? this.sandboxPages.url(options.publicOrigin, payment.id)
        : payment.confirmationUrl;
    await this.ds.query('UPDATE payment_orders SET provider_payment_id = $2, confirmation_url = $3, updated_at = now() WHERE id = $1', [
      order.id,
      payment.id,
      confirmationUrl,
    ]);
    // A saved method may be charged at once: the create answer comes from the provider's API, so it is believed.
    if (payment.status !== 'pending') await this.sync(await this.reload(order.id), payment);
    return toCheckoutView(await this.reload(order.id));
  }

  /** Pays with the account's saved method; with none saved it behaves like initiate. */
  async quickCheckout(
    userId: number,
    articleId: string,
    options: { returnUrl?: string; publicOrigin?: string } = {},
  ): Promise<CheckoutView> {
    await this.catalog.require(articleId);
    const gateway = this.require();
    const saved = await this.ds.getRepository(SavedPaymentMethodEntity).findOneBy({ userId, provider: gateway.name });
    return this.initiate(userId, articleId, saved ? { ...options, paymentMethodId: saved.methodId } : options);
  }

  private reload(id: number): Promise<OrderRecord> {
    return this.ds.getRepository(PaymentOrderEntity).findOneByOrFail({ id });
  }

  /**
   * A notification is only a hint: the payment is re-read from the provider's API and the order follows what the
   * API says. A payment that succeeded for no order of ours (the account was deleted with it, or it names another
   * order) is refunded and the admins are told; any other unknown payment changes nothing.
   * @throws InvalidNotificationError (not a notification), UnknownPaymentError (the provider does not know it),
   *   PaymentProviderUnavailableError (a refund owed cannot be asked for now: the provider retries the notification)
   */
  async handleNotification(body: unknown): Promise<NotificationOutcome> {
    const parsed = notificationSchema.safeParse(body);
    if (!parsed.success) throw new InvalidNotificationError('Not a payment notification');
    const gateway = this.require();
    if (!parsed.data.event.startsWith('payment.')) return 'ignored';
    const payment = await gateway.getPayment(parsed.data.object.id);
    if (!payment) throw new UnknownPaymentError(parsed.data.object.id);
    const order = await this.ds.getRepository(PaymentOrderEntity).findOneBy({ provider: gateway.name, providerPaymentId: payment.id });
    if (!order || (payment.orderReference !== null && payment.orderReference !== order.reference)) {
      if (payment.status === 'succeeded') {
        await this.refundOrphan(gateway, payment, order ? 'other_payment' : 'unknown_order');
        return 'refunded';
      }
      this.log.warn({ paymentId: payment.id }, 'carrier notification for a payment that is not one of our orders');
      return 'ignored';
    }
    return this.sync(order, payment);
  }

  private async refundOrphan(
    gateway: CarrierGateway,
    payment: CarrierPayment,
    reason: 'unknown_order' | 'order_canceled' | 'other_payment',
  ) {
    await this.orphans.refund(
      gateway.name,
      { chargeId: payment.id, amountMinor: payment.amountMinor, currency: payment.currency },
      reason,
      payment.orderReference,
      { notificationRetried: true },
    );
  }

  /**
   * Moves the order to what the provider's payment says (fulfil on succeeded, cancel on canceled). A payment that
   * succeeded although its order can no longer be fulfilled (canceled, say with its account) is refunded.
   */
  async sync(order: OrderRecord, payment: CarrierPayment): Promise<NotificationOutcome> {
    if (payment.status === 'succeeded') {
      if (payment.amountMinor !== order.amountMinor || payment.currency !== order.currency) {
        this.log.error({ orderId: order.id, paymentId: payment.id }, 'carrier payment amount differs from the order: not fulfilled');
        return 'mismatch';
      }
      const result = await this.settlement.fulfil(order.id, payment.id);
      if (result.applied && payment.savedMethod && order.savePaymentMethod) {
        await this.ds.query(
          `INSERT INTO saved_payment_methods (user_id, provider, method_id, title) VALUES ($1, $2, $3, $4)
           ON CONFLICT (user_id, provider) DO UPDATE SET method_id = EXCLUDED.method_id, title = EXCLUDED.title, created_at = now()`,
          [order.userId, order.provider, payment.savedMethod.id, payment.savedMethod.title],
        );
      }
      if (result.applied) return 'fulfilled';
      const paidOrder = await this.ds.getRepository(PaymentOrderEntity).countBy({ provider: order.provider, providerChargeId: payment.id });
      if (paidOrder > 0) return 'duplicate';
      const gateway = this.require();
      await this.refundOrphan(gateway, payment, 'order_canceled');
      return 'refunded';
    }
    if (payment.status === 'canceled') return (await cancelOrder(this.ds, order.id)) ? 'canceled' : 'duplicate';
    return 'pending';
  }
}
