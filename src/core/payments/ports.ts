import type { PaymentProviderName } from '../../db/entities';
import type { Logger } from '../../logger';
import type { OrderRecord } from './orders';
import type { CarrierReceipt } from './receipts';

/** What a paid order was, for listeners (admin notices, the account's webhooks). */
export interface PaymentSucceededEvent {
  orderId: number;
  reference: string;
  userId: number;
  userName: string;
  articleId: string;
  articleTitle: string;
  kind: 'tokens' | 'plan';
  tokens: number | null;
  plan: string | null;
  /** Major units (rubles) or Stars. */
  amount: number;
  currency: string;
  provider: PaymentProviderName;
  chargeId: string;
  /** A subscription renewal (Stars `is_recurring` after the first payment). */
  renewal: boolean;
  paidAt: Date;
}

export interface PaymentRefundedEvent extends Omit<PaymentSucceededEvent, 'renewal' | 'paidAt'> {
  tokensTaken: number;
  tokensSpent: number;
  refundedAt: Date;
}

/** A Stars subscription stopped because the account bought another plan. */
export interface SubscriptionReplacedEvent {
  userId: number;
  telegramId: string | null;
  canceledPlan: string;
  newPlan: string;
  /** The order that started the canceled subscription. */
  orderId: number;
}

/** An invited account's first payment credited the referral bonuses (each a ledger row of the fulfilment). */
export interface ReferralRewardedEvent {
  orderId: number;
  /** Who took the payment (the bot thanks a Stars buyer for both at once). */
  provider: PaymentProviderName;
  inviteeId: number;
  /** Null when the inviter's account is gone. */
  inviterId: number | null;
  inviterBonus: number;
  inviteeBonus: number;
}

/** A port for whoever reacts to money coming in (or going back): the bot's admin notices, webhooks. */
export interface PaymentListener {
  paymentSucceeded?(event: PaymentSucceededEvent): Promise<void> | void;
  paymentRefunded?(event: PaymentRefundedEvent): Promise<void> | void;
  subscriptionReplaced?(event: SubscriptionReplacedEvent): Promise<void> | void;
  refundCanceled?(event: RefundCanceledEvent): Promise<void> | void;
  orphanPayment?(event: OrphanPaymentEvent): Promise<void> | void;
  referralRewarded?(event: ReferralRewardedEvent): Promise<void> | void;
}

/** Fans payment events out to the registered listeners; a failing listener is logged, never raised. */
export class PaymentHub {
  private readonly listeners = new Set<PaymentListener>();

  constructor(private readonly log?: Logger) {}

  add(listener: PaymentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async emit(orderId: number, call: (l: PaymentListener) => Promise<void> | void): Promise<void> {
    await Promise.all(
      [...this.listeners].map(async (l) => {
        try {
          await call(l);
        } catch (err) {
          this.log?.warn({ err, orderId }, 'payment listener failed');
        }
      }),
    );
  }

  succeeded(event: PaymentSucceededEvent): Promise<void> {
    return this.emit(event.orderId, (l) => l.paymentSucceeded?.(event));
  }

  refunded(event: PaymentRefundedEvent): Promise<void> {
    return this.emit(event.orderId, (l) => l.paymentRefunded?.(event));
  }

  subscriptionReplaced(event: SubscriptionReplacedEvent): Promise<void> {
    return this.emit(event.orderId, (l) => l.subscriptionReplaced?.(event));
  }

  refundCanceled(event: RefundCanceledEvent): Promise<void> {
    return this.emit(event.orderId, (l) => l.refundCanceled?.(event));
  }

  orphanPayment(event: OrphanPaymentEvent): Promise<void> {
    return this.emit(0, (l) => l.orphanPayment?.(event));
  }

  referralRewarded(event: ReferralRewardedEvent): Promise<void> {
    return this.emit(event.orderId, (l) => l.referralRewarded?.(event));
  }
}

/**
 * Money that came in for no open order of ours (the account was deleted, the order canceled or never made): the
 * charge as the provider reports it, enough to give it back without an order.
 */
export interface OrphanCharge {
  /** The carrier's payment id, or Telegram's payment charge id. */
  chargeId: string;
  /** Minor units (kopecks), or Stars. */
  amountMinor: number;
  currency: string;
  /** Who paid (Stars refunds name the Telegram user). */
  telegramId?: string | null;
}

/** Why a charge had no order to fulfil. */
export type OrphanReason = 'unknown_order' | 'order_canceled' | 'other_payment';

/** An orphaned payment and what became of it: given back, on its way back, or not (the admins refund it by hand). */
export interface OrphanPaymentEvent {
  provider: PaymentProviderName;
  chargeId: string;
  /** Major units (rubles), or Stars. */
  amount: number;
  currency: string;
  /** The order reference the payment named, when it named one. */
  reference: string | null;
  reason: OrphanReason;
  outcome: 'refunded' | 'refund_pending' | 'refund_failed';
  error?: string;
}

/**
 * What a provider says of a refund: done (`succeeded`, or `already_refunded` which counts as done), still
 * `pending` (followed up by its id), or `canceled` (no money went back).
 */
export type RefundOutcome =
  { state: 'succeeded' } | { state: 'already_refunded' } | { state: 'pending'; refundId: string } | { state: 'canceled'; reason: string };

/** A refund the provider canceled: the order stays fulfilled and nothing was taken back. */
export interface RefundCanceledEvent {
  orderId: number;
  reference: string;
  userId: number;
  provider: PaymentProviderName;
  chargeId: string;
  reason: string;
}

/** Who gets the money back; `receipt` is the 54-FZ refund receipt when receipts are on (carrier refunds). */
export interface RefundBuyer {
  telegramId: string | null;
  receipt?: CarrierReceipt;
}

/**
 * Gives a charge back at its provider. Answers `already_refunded` when the provider says so (counts as done).
 * @throws PaymentProviderUnavailableError (retry later), PaymentProviderRejectedError (give up)
 */
export interface RefundGateway {
  refund(order: OrderRecord, buyer: RefundBuyer): Promise<RefundOutcome>;
  /** A pending refund as the provider reports it now (providers that answer `pending`). */
  refundStatus?(refundId: string): Promise<RefundOutcome>;
  /** Stops the renewals of a subscription (the order that started it). */
  cancelSubscription?(subscription: OrderRecord, buyer: { telegramId: string | null }): Promise<void>;
  /** Gives back a charge that has no order (see OrphanPayments); asking twice for the same charge refunds it once. */
  refundCharge?(charge: OrphanCharge): Promise<RefundOutcome>;
}

/** A payment as the carrier reports it (re-read from its API, never taken from a notification body). */
export interface CarrierPayment {
  id: string;
  status: 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';
  /** Minor units. */
  amountMinor: number;
  currency: string;
  confirmationUrl: string | null;
  /** The order reference we put in `metadata`. */
  orderReference: string | null;
  /** Set when the method was saved for later payments. */
  savedMethod: { id: string; title: string | null } | null;
}

export interface CreateCarrierPayment {
  /** Repeating a key returns the first payment (the provider's idempotence). */
  idempotenceKey: string;
  amountMinor: number;
  currency: string;
  description: string;
  orderReference: string;
  returnUrl: string;
  savePaymentMethod: boolean;
  /** Pay with a saved method (no confirmation step). */
  paymentMethodId?: string;
  /** The 54-FZ receipt, when receipts are on. */
  receipt?: CarrierReceipt;
}

/** The web payment provider ("carrier"): YooKassa today; another provider is another adapter of this port. */
export interface CarrierGateway extends RefundGateway {
  readonly name: PaymentProviderName;
  /** True when it runs against the built-in sandbox fake. */
  readonly sandbox: boolean;
  createPayment(input: CreateCarrierPayment): Promise<CarrierPayment>;
  /** null when the provider does not know the id. */
  getPayment(id: string): Promise<CarrierPayment | null>;
  /** Subscribes our notification endpoint (the sandbox; a live shop configures it in its dashboard). */
  subscribeNotifications(url: string): Promise<void>;
}

/** Durable refund requests: a job retries them until the provider answers for good. */
export interface RefundQueue {
  enqueue(orderId: number): Promise<void>;
}
