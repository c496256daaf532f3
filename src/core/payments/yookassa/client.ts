import crypto from 'node:crypto';
import type { PaymentProviderName } from '../../../db/entities';
import type { OrderRecord } from '../orders';
import { PaymentProviderRejectedError, PaymentProviderUnavailableError } from '../errors';
import type { CarrierGateway, CarrierPayment, CreateCarrierPayment, OrphanCharge, RefundBuyer, RefundOutcome } from '../ports';
import type { CarrierReceipt } from '../receipts';
import { errorSchema, fromApiAmount, paymentSchema, refundSchema, toApiAmount, type YooKassaPayment } from './wire';

export const YOOKASSA_BASE_URL = 'https://api.yookassa.ru/v3';

export interface YooKassaSettings {
  shopId: string;
  secretKey: string;
  /** `https://api.yookassa.ru/v3` or a compatible endpoint (the sandbox fake). */
  baseUrl: string;
  sandbox: boolean;
  timeoutMs?: number;
}

/** Our receipt as the API's `receipt` object (quantities and amounts as decimal strings, as documented). */
function toApiReceipt(receipt: CarrierReceipt): Record<string, unknown> {
  return {
    customer: receipt.customer,
    items: receipt.items.map((item) => ({
      description: item.description,
      quantity: item.quantity.toFixed(2),
      amount: { value: toApiAmount(item.amountMinor), currency: item.currency },
      vat_code: item.vatCode,
      payment_subject: item.paymentSubject,
      payment_mode: item.paymentMode,
    })),
  };
}

function toCarrierPayment(p: YooKassaPayment): CarrierPayment {
  return {
    id: p.id,
    status: p.status,
    amountMinor: fromApiAmount(p.amount.value),
    currency: p.amount.currency,
    confirmationUrl: p.confirmation?.confirmation_url ?? null,
    orderReference: p.metadata?.order_id ?? null,
    savedMethod: p.payment_method?.saved ? { id: p.payment_method.id, title: p.payment_method.title ?? null } : null,
  };
}

/** YooKassa API v3 over HTTP Basic auth (shopId:secretKey); POSTs carry an Idempotence-Key. */
export class YooKassaGateway implements CarrierGateway {
  readonly name: PaymentProviderName = 'yookassa';
  readonly sandbox: boolean;
  private readonly auth: string;

  constructor(private readonly settings: YooKassaSettings) {
    this.sandbox = settings.sandbox;
    this.auth = `Basic ${Buffer.from(`${settings.shopId}:${settings.secretKey}`).toString('base64')}`;
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotenceKey?: string,
  ): Promise<{ status: number; json: unknown }> {
    const headers: Record<string, string> = { Authorization: this.auth, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotenceKey) headers['Idempotence-Key'] = idempotenceKey;
    let res: Response;
    try {
      res = await fetch(`${this.settings.baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs ?? 15_000),
      });
    } catch (err) {
      throw new PaymentProviderUnavailableError('yookassa', (err as Error).message);
    }
    const text = await res.text().catch(() => '');
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.status === 429 || res.status >= 500) throw new PaymentProviderUnavailableError('yookassa', `HTTP ${res.status}`);
    return { status: res.status, json };
  }

  private rejected(status: number, json: unknown): PaymentProviderRejectedError {
    const e = errorSchema.safeParse(json);
    if (!e.success) return new PaymentProviderRejectedError('yookassa', `HTTP ${status}`);
    const parameter = e.data.parameter ? ` (parameter ${e.data.parameter})` : '';
    return new PaymentProviderRejectedError('yookassa', `${e.data.code}: ${e.data.description ?? ''}${parameter}`);
  }

  private payment(json: unknown): CarrierPayment {
    const parsed = paymentSchema.safeParse(json);
    if (!parsed.success) throw new PaymentProviderUnavailableError('yookassa', 'unexpected payment object');
    return toCarrierPayment(parsed.data);
  }

  async createPayment(input: CreateCarrierPayment): Promise<CarrierPayment> {
    const body: Record<string, unknown> = {
      amount: { value: toApiAmount(input.amountMinor), currency: input.currency },
      capture: true,
      description: input.description.slice(0, 128),
      metadata: { order_id: input.orderReference },
    };
    if (input.receipt) body.receipt = toApiReceipt(input.receipt);
    if (input.paymentMethodId) body.payment_method_id = input.paymentMethodId;
    else {
      body.confirmation = { type: 'redirect', return_url: input.returnUrl };
      if (input.savePaymentMethod) body.save_payment_method = true;
    }
    const { status, json } = await this.call('POST', '/payments', body, input.idempotenceKey);
    if (status !== 200) throw this.rejected(status, json);
    return this.payment(json);
  }

  async getPayment(id: string): Promise<CarrierPayment | null> {
    if (!/^[A-Za-z0-9-]{1,64}$/.test(id)) return null;
    const { status, json } = await this.call('GET', `/payments/${encodeURIComponent(id)}`);
    if (status === 404) return null;
    if (status !== 200) throw this.rejected(status, json);
    return this.payment(json);
  }

  /**
   * POST /refunds. The Idempotence-Key (at most 64 characters) names the order and this refund request, so a retry
   * of the same request never refunds twice while a new request after a canceled refund is a new refund.
   */
  async refund(order: OrderRecord, buyer?: RefundBuyer): Promise<RefundOutcome> {
    const paymentId = order.providerPaymentId ?? order.providerChargeId;
    if (!paymentId) throw new PaymentProviderRejectedError('yookassa', 'the order has no payment id');
    const requested = order.refundRequestedAt ? new Date(order.refundRequestedAt).getTime() : 0;
    const { status, json } = await this.call(
      'POST',
      '/refunds',
      {
        payment_id: paymentId,
        amount: { value: toApiAmount(order.amountMinor), currency: order.currency },
        ...(buyer?.receipt ? { receipt: toApiReceipt(buyer.receipt) } : {}),
      },
      `refund:${order.reference}:${requested}`,
    );
    if (status !== 200) throw this.rejected(status, json);
    return this.refundOutcome(json);
  }

  /**
   * POST /refunds for a payment that fulfilled no order. The Idempotence-Key is the payment's own, so however often a
   * notification of it comes, it is refunded once.
   */
  async refundCharge(charge: OrphanCharge): Promise<RefundOutcome> {
    const { status, json } = await this.call(
      'POST',
      '/refunds',
      { payment_id: charge.chargeId, amount: { value: toApiAmount(charge.amountMinor), currency: charge.currency } },
      `orphan-refund:${charge.chargeId}`,
    );
    if (status !== 200) throw this.rejected(status, json);
    return this.refundOutcome(json);
  }

  /** GET /refunds/{id}: where a pending refund stands now. */
  async refundStatus(refundId: string): Promise<RefundOutcome> {
    if (!/^[A-Za-z0-9-]{1,64}$/.test(refundId)) throw new PaymentProviderRejectedError('yookassa', 'not a refund id');
    const { status, json } = await this.call('GET', `/refunds/${encodeURIComponent(refundId)}`);
    if (status !== 200) throw this.rejected(status, json);
    return this.refundOutcome(json);
  }

  private refundOutcome(json: unknown): RefundOutcome {
    const parsed = refundSchema.safeParse(json);
    if (!parsed.success) throw new PaymentProviderUnavailableError('yookassa', 'unexpected refund object');
    const refund = parsed.data;
    if (refund.status === 'succeeded') return { state: 'succeeded' };
    if (refund.status === 'pending') return { state: 'pending', refundId: refund.id };
    const details = refund.cancellation_details;
    return { state: 'canceled', reason: details ? `${details.party}: ${details.reason}` : 'canceled' };
  }

  async subscribeNotifications(url: string): Promise<void> {
    for (const event of ['payment.succeeded', 'payment.canceled']) {
      const { status, json } = await this.call(
        'POST',
        '/webhooks',
        { event, url },
        `webhook-${crypto.createHash('sha256').update(`${event} ${url}`).digest('hex').slice(0, 40)}`,
      );
      if (status !== 200) throw this.rejected(status, json);
    }
  }
}
