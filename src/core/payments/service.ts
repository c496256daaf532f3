import crypto from 'node:crypto';
import { DataSource, IsNull } from 'typeorm';
import { PaymentOrderEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import { PlanDirectory } from '../accounts/plans';
import { ArticleCatalog, toArticleView, type ArticleView } from './articles';
import { CarrierCheckout } from './carrier';
import { expireStaleOrders } from './expiry';
import { listUserOrders, requireUserOrder, toOrderView, type OrderView } from './orders';
import type { ReferralBonuses } from '../referrals/first-payment';
import { PaymentHub, type CarrierGateway } from './ports';
import { OrphanPayments } from './orphans';
import { RefundDesk } from './refund-desk';
import { PaymentSettlement } from './settlement';
import type { ReceiptSettings } from './receipts';
import type { SandboxCheckoutPages } from './sandbox-checkout';
import { StarsPayments } from './stars';
import { SubscriptionReplacer } from './subscriptions';
import { YOOKASSA_BASE_URL, YooKassaGateway } from './yookassa/client';

export interface CarrierSettings {
  shopId?: string;
  secretKey?: string;
  baseUrl?: string;
}

/**
 * The carrier adapter for the configuration: live YooKassa with credentials; the sandbox fake (when it is mounted)
 * without them; none otherwise (production without credentials: checkout answers 503).
 */
export function carrierGateway(
  settings: CarrierSettings,
  sandboxBaseUrl: string | undefined,
  sandboxShopSeed: string,
): CarrierGateway | undefined {
  if (settings.shopId && settings.secretKey) {
    return new YooKassaGateway({
      shopId: settings.shopId,
      secretKey: settings.secretKey,
      baseUrl: settings.baseUrl ?? YOOKASSA_BASE_URL,
      sandbox: false,
    });
  }
  if (!sandboxBaseUrl) return undefined;
  // The fake keeps payments per shop; one shop per data directory keeps test engines apart.
  const shopId = `sandbox-${crypto.createHash('sha256').update(sandboxShopSeed).digest('hex').slice(0, 12)}`;
  return new YooKassaGateway({ shopId, secretKey: 'sandbox-secret', baseUrl: sandboxBaseUrl, sandbox: true });
}

/** Money in: articles, orders, the carrier checkout, Telegram Stars, refunds and expiry, on one ledger. */
export class PaymentService {
  readonly catalog: ArticleCatalog;
  /** Register a PaymentListener here to hear of paid and refunded orders. */
  readonly hub: PaymentHub;
  readonly settlement: PaymentSettlement;
  readonly carrier: CarrierCheckout;
  /** The sandbox carrier's confirmation page, served by the HTTP door (undefined with a live shop). */
  readonly sandboxCheckout?: SandboxCheckoutPages;
  readonly stars: StarsPayments;
  readonly refunds: RefundDesk;

  constructor(
    private readonly ds: DataSource,
    plans: PlanDirectory,
    private readonly log: Logger,
    options: {
      carrier?: CarrierGateway;
      defaultReturnUrl: string;
      receipts?: ReceiptSettings | null;
      sandboxPages?: SandboxCheckoutPages;
      /** Credited at an invited account's first payment (none when absent). */
      referralBonuses?: ReferralBonuses;
    },
  ) {
    this.sandboxCheckout = options.carrier?.sandbox ? options.sandboxPages : undefined;
    this.catalog = new ArticleCatalog(ds);
    this.hub = new PaymentHub(log);
    this.settlement = new PaymentSettlement(ds, plans, this.hub, log, options.referralBonuses);
    this.refunds = new RefundDesk(ds, this.settlement, this.hub, log, options.receipts);
    if (options.carrier) this.refunds.useGateway(options.carrier.name, options.carrier);
    const orphans = new OrphanPayments(ds, (provider) => this.refunds.gateway(provider), this.hub, log);
    this.carrier = new CarrierCheckout(
      ds,
      this.catalog,
      this.settlement,
      orphans,
      options.carrier,
      options.defaultReturnUrl,
      log,
      options.receipts,
      this.sandboxCheckout,
    );
    this.stars = new StarsPayments(ds, this.catalog, this.settlement, orphans, log);
    const replacer = new SubscriptionReplacer(ds, (provider) => this.refunds.gateway(provider), this.hub, log);
    this.settlement.whenPlanBought((order) => replacer.planBought(order));
  }

  async articles(): Promise<ArticleView[]> {
    return (await this.catalog.list()).map(toArticleView);
  }

  async orders(userId: number): Promise<OrderView[]> {
    return (await listUserOrders(this.ds, userId)).map(toOrderView);
  }

  /** @throws OrderNotFoundError (also for another user's order) */
  async order(userId: number, id: number): Promise<OrderView> {
    return toOrderView(await requireUserOrder(this.ds, userId, id));
  }

  expireStale(): Promise<number> {
    return expireStaleOrders(this.ds, this.carrier, this.log);
  }

  /**
   * Before an account is deleted: its open checkouts are canceled (a payment that still succeeds on a checkout page
   * left open is then refunded, see OrphanPayments) and its Stars subscriptions stop renewing (best effort: a renewal
   * that still comes is refunded the same way). @returns how many checkouts were canceled
   */
  async closeAccount(userId: number): Promise<number> {
    const canceled = await this.ds.query<{ id: number }[]>(
      `WITH c AS (
         UPDATE payment_orders SET status = 'canceled', updated_at = now() WHERE user_id = $1 AND status = 'pending' RETURNING id
       ) SELECT id FROM c`,
      [userId],
    );
    const subscriptions = await this.ds.getRepository(PaymentOrderEntity).find({
      where: { userId, isSubscription: true, parentOrderId: IsNull(), status: 'fulfilled', subscriptionCanceledAt: IsNull() },
    });
    const [buyer] = await this.ds.query<{ telegram_id: string | null }[]>('SELECT telegram_id FROM users WHERE id = $1', [userId]);
    for (const root of subscriptions) {
      try {
        await this.refunds.gateway(root.provider)?.cancelSubscription?.(root, { telegramId: buyer?.telegram_id ?? null });
      } catch (err) {
        this.log.warn({ orderId: root.id, err: (err as Error).message }, 'a deleted account’s subscription could not be stopped');
      }
    }
    if (canceled.length > 0 || subscriptions.length > 0) {
      this.log.info({ userId, checkouts: canceled.length, subscriptions: subscriptions.length }, 'account closing: checkouts canceled');
    }
    return canceled.length;
  }

  /**
   * Points the sandbox carrier's notifications at our endpoint (a live shop sets its URL in the YooKassa dashboard).
   * @returns whether web payments run on the sandbox
   */
  async connectSandboxNotifications(url: string): Promise<boolean> {
    const gateway = this.carrier.provider;
    if (!gateway?.sandbox) return false;
    await gateway.subscribeNotifications(url);
    this.log.debug(
      { url },
      'yookassa: no YOOKASSA_SHOP_ID/YOOKASSA_SECRET_KEY, web checkout runs on the built-in SANDBOX (nothing is charged)',
    );
    return true;
  }
}
