/** Where this service serves the built-in YooKassa fake's confirmation page (the HTTP door mounts it). */
export const SANDBOX_CHECKOUT_PATH = '/sandbox/yookassa/checkout';

export type SandboxCheckoutAction = 'view' | 'approve' | 'cancel';

/** The fake's answer, passed on as it is: the page, or the redirect back to the shop. */
export interface SandboxCheckoutAnswer {
  status: number;
  contentType: string | null;
  location: string | null;
  body: string;
}

const PAYMENT_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The sandbox carrier's confirmation page, served under this service's own address. The fake listens on a
 * loopback port of its own, which a browser on another machine cannot reach: a checkout started through the
 * service gets a confirmation URL on the service's public origin (PUBLIC_URL, else the request's), and the
 * page and its two buttons are forwarded to the fake.
 */
export class SandboxCheckoutPages {
  /** @param fakeMount the fake's base, `http://127.0.0.1:<port>/yookassa` */
  constructor(private readonly fakeMount: string) {}

  /** The confirmation URL a buyer opens for `paymentId`, under `origin`. */
  url(origin: string, paymentId: string): string {
    return `${origin}${SANDBOX_CHECKOUT_PATH}/${encodeURIComponent(paymentId)}`;
  }

  /** Whether `id` can name a payment of the fake (anything else is not forwarded). */
  static isPaymentId(id: string): boolean {
    return PAYMENT_ID.test(id);
  }

  async forward(paymentId: string, action: SandboxCheckoutAction): Promise<SandboxCheckoutAnswer> {
    if (!SandboxCheckoutPages.isPaymentId(paymentId)) throw new TypeError('not a sandbox payment id');
    const res = await fetch(`${this.fakeMount}/checkout/${paymentId}${action === 'view' ? '' : `/${action}`}`, {
      method: action === 'view' ? 'GET' : 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      location: res.headers.get('location'),
      body: await res.text(),
    };
  }
}
