import { DataSource } from 'typeorm';
import { PaymentOrderEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import { DomainError } from '../errors';
import { ArticleCatalog, STARS_CURRENCY, STARS_SUBSCRIPTION_PERIOD_SECONDS, type Article } from './articles';
import type { Fulfilment } from './fulfilment';
import { cancelOrder, createOrder, createRenewalOrder, findOrderByReference, type OrderRecord } from './orders';
import type { OrphanPayments } from './orphans';
import type { OrphanReason } from './ports';
import type { PaymentSettlement } from './settlement';
import { PaymentProviderUnavailableError, StarsUnavailableError, TelegramAccountRequiredError } from './errors';

/** What the bot puts in sendInvoice (packages) or createInvoiceLink (plan subscriptions). */
export interface StarsInvoice {
  title: string;
  description: string;
  /** The order reference (1-128 bytes). */
  payload: string;
  currency: typeof STARS_CURRENCY;
  amount: number;
  /** Set for plans: a 30-day Stars subscription. */
  subscriptionPeriod?: number;
}

/**
 * Makes a Stars invoice link (the bot's createInvoiceLink) that the Mini App opens with `Telegram.WebApp.openInvoice`;
 * its payment reaches the bot like any other and is fulfilled by the same flow.
 * @throws PaymentProviderUnavailableError (retry later), PaymentProviderRejectedError
 */
export interface StarsInvoiceLinks {
  create(invoice: StarsInvoice): Promise<string>;
}

export type PreCheckoutAnswer = { ok: true } | { ok: false; reason: 'unknown_order' | 'not_pending' | 'wrong_amount' };

export interface StarsPaymentInput {
  telegramUserId: number;
  payload: string;
  currency: string;
  totalAmount: number;
  chargeId: string;
  isRecurring?: boolean;
  isFirstRecurring?: boolean;
}

export interface StarsPaymentResult {
  /** `refunded`: the payment fulfilled no order (its account or order is gone) and was given back, or the admins were told to. */
  outcome: 'fulfilled' | 'duplicate' | 'refunded';
  order?: OrderRecord;
  planChange?: Fulfilment['planChange'];
  /** Bonus tokens credited for a plan paid while a higher plan runs. */
  bonusTokens?: number;
  /** The referral bonuses this first payment of an invited account credited. */
  referral?: Fulfilment['referral'];
}

/** Telegram Stars purchases: orders priced in XTR, paid through the bot's invoices. */
export class StarsPayments {
  private invoiceLinks?: StarsInvoiceLinks;

  constructor(
    private readonly ds: DataSource,
    private readonly catalog: ArticleCatalog,
    private readonly settlement: PaymentSettlement,
    private readonly orphans: OrphanPayments,
    private readonly log: Logger,
  ) {}

  invoiceFor(order: OrderRecord, article: Article): StarsInvoice {
    return {
      title: article.title.slice(0, 32),
      description: (article.kind === 'plan'
        ? `${article.title}: renews every 30 days until canceled`
        : `${article.title}; bonus tokens never expire`
      ).slice(0, 255),
      payload: order.reference,
      currency: STARS_CURRENCY,
      amount: order.amountMinor,
      ...(article.kind === 'plan' ? { subscriptionPeriod: STARS_SUBSCRIPTION_PERIOD_SECONDS } : {}),
    };
  }

  /** A pending Stars order and its invoice. @throws UnknownArticleError */
  async startPurchase(userId: number, articleId: string): Promise<{ order: OrderRecord; article: Article; invoice: StarsInvoice }> {
    const article = await this.catalog.require(articleId);
    const order = await createOrder(this.ds, { userId, article, provider: 'stars', isSubscription: article.kind === 'plan' });
    return { order, article, invoice: this.invoiceFor(order, article) };
  }

  /** The bot running in this process makes the invoice links of purchases started elsewhere (the Mini App). */
  useInvoiceLinks(links: StarsInvoiceLinks): void {
    this.invoiceLinks = links;
  }

  /**
   * A pending Stars order and its invoice link, for a purchase the dashboard starts inside Telegram. The account
   * pays as its Telegram user, so it needs one. A link Telegram refuses to make cancels the order.
   * @throws UnknownArticleError, StarsUnavailableError, TelegramAccountRequiredError, PaymentProviderUnavailableError
   */
  async startLinkPurchase(userId: number, articleId: string): Promise<{ order: OrderRecord; link: string }> {
    const links = this.invoiceLinks;
    if (!links) throw new StarsUnavailableError();
    const [user] = await this.ds.query<{ telegram_id: string | null }[]>('SELECT telegram_id FROM users WHERE id = $1', [userId]);
    if (!user?.telegram_id) throw new TelegramAccountRequiredError();
    const { order, invoice } = await this.startPurchase(userId, articleId);
    try {
      return { order, link: await links.create(invoice) };
    } catch (err) {
      await cancelOrder(this.ds, order.id);
      throw err instanceof DomainError ? err : new PaymentProviderUnavailableError('stars', (err as Error).message);
    }
  }

  private async ownedBy(order: OrderRecord, telegramUserId: number): Promise<boolean> {
    const rows = await this.ds.query<unknown[]>('SELECT 1 FROM users WHERE id = $1 AND telegram_id = $2', [
      order.userId,
      String(telegramUserId),
    ]);
    return rows.length > 0;
  }

  /** ok only for a pending order of this Telegram user with the same amount and currency. */
  async preCheckout(q: { telegramUserId: number; payload: string; currency: string; totalAmount: number }): Promise<PreCheckoutAnswer> {
    const order = await findOrderByReference(this.ds, q.payload);
    if (!order || order.provider !== 'stars' || !(await this.ownedBy(order, q.telegramUserId)))
      return { ok: false, reason: 'unknown_order' };
    if (order.status !== 'pending') return { ok: false, reason: 'not_pending' };
    if (q.currency !== order.currency || q.totalAmount !== order.amountMinor) return { ok: false, reason: 'wrong_amount' };
    return { ok: true };
  }

  /**
   * successful_payment: fulfils the order once per telegram_payment_charge_id. A subscription renewal
   * (`is_recurring` after the first payment) carries the first invoice's payload: it becomes a new order of the
   * same article, linked to the first, and extends the plan by one period.
   */
  async paymentReceived(p: StarsPaymentInput): Promise<StarsPaymentResult> {
    const order = await findOrderByReference(this.ds, p.payload);
    if (!order || order.provider !== 'stars') {
      // A renewal of a deleted account's subscription, or a payload we never issued.
      this.log.error({ payload: p.payload.slice(0, 128), chargeId: p.chargeId }, 'Stars payment for an unknown order');
      return this.refundOrphan(p, 'unknown_order');
    }
    const renewal = p.isRecurring === true && p.isFirstRecurring !== true && order.status !== 'pending';
    if (!renewal) {
      const result = await this.settlement.fulfil(order.id, p.chargeId);
      // Paid although the order can no longer be fulfilled (canceled, as a deleted account's checkouts are), and the
      // charge paid no other order (a replayed charge id is a duplicate, not money to give back).
      if (!result.applied && !(await this.chargeFulfilled(p.chargeId))) return this.refundOrphan(p, 'order_canceled');
      return {
        outcome: result.applied ? 'fulfilled' : 'duplicate',
        order: result.order,
        planChange: result.planChange,
        bonusTokens: result.bonusTokens,
        referral: result.referral,
      };
    }
    const repo = this.ds.getRepository(PaymentOrderEntity);
    const seen = await repo.findOneBy({ provider: 'stars', providerChargeId: p.chargeId });
    if (seen) return { outcome: 'duplicate', order: seen };
    const renewalOrder = await createRenewalOrder(this.ds, order, p.totalAmount, p.currency);
    const result = await this.settlement.fulfil(renewalOrder.id, p.chargeId);
    if (!result.applied) {
      await cancelOrder(this.ds, renewalOrder.id);
      return { outcome: 'duplicate', order: (await repo.findOneBy({ provider: 'stars', providerChargeId: p.chargeId })) ?? order };
    }
    return { outcome: 'fulfilled', order: result.order, planChange: result.planChange, bonusTokens: result.bonusTokens };
  }

  private async chargeFulfilled(chargeId: string): Promise<boolean> {
    return (await this.ds.getRepository(PaymentOrderEntity).countBy({ provider: 'stars', providerChargeId: chargeId })) > 0;
  }

  private async refundOrphan(p: StarsPaymentInput, reason: OrphanReason): Promise<StarsPaymentResult> {
    await this.orphans.refund(
      'stars',
      { chargeId: p.chargeId, amountMinor: p.totalAmount, currency: p.currency, telegramId: String(p.telegramUserId) },
      reason,
      p.payload.slice(0, 128),
      { notificationRetried: false },
    );
    return { outcome: 'refunded' };
  }

  /**
   * The user's Stars subscription that still renews (the first order of the chain), whatever plan the account is on
   * now: a subscription to a lower plan keeps charging while a higher one runs, so it must stay cancellable.
   */
  async activeSubscription(userId: number): Promise<OrderRecord | null> {
    const rows = await this.ds.query<{ id: number }[]>(
      `SELECT o.id FROM payment_orders o
        WHERE o.user_id = $1 AND o.provider = 'stars' AND o.is_subscription AND o.parent_order_id IS NULL
          AND o.status = 'fulfilled' AND o.subscription_canceled_at IS NULL
        ORDER BY o.id DESC LIMIT 1`,
      [userId],
    );
    return rows[0] ? this.ds.getRepository(PaymentOrderEntity).findOneBy({ id: rows[0].id }) : null;
  }

  /** Records that renewal stopped (after editUserStarSubscription); the plan stays until its paid period ends. */
  async markSubscriptionCanceled(orderId: number): Promise<boolean> {
    const rows = await this.ds.query<unknown[]>(
      `WITH u AS (UPDATE payment_orders SET subscription_canceled_at = now(), updated_at = now() WHERE id = $1 AND subscription_canceled_at IS NULL RETURNING id)
       SELECT id FROM u`,
      [orderId],
    );
    return rows.length > 0;
  }
}
