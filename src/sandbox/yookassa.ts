import crypto from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { SandboxHandler, SandboxRequest, sendJson } from './types';

// A fake of the YooKassa API v3 (https://yookassa.ru/developers/api) for offline checkout: HTTP Basic auth
// (shopId:secretKey), Idempotence-Key on POST, payments (redirect confirmation, capture, save_payment_method,
// payment_method_id), refunds, webhooks (the partner API's way to set the notification URL), and the
// notifications YooKassa POSTs ({type: "notification", event, object}). The confirmation_url opens a page on which
// a tester approves or cancels the payment. State is kept per shop, in memory.

type Status = 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';

interface Payment {
  id: string;
  status: Status;
  paid: boolean;
  amount: { value: string; currency: string };
  income_amount?: { value: string; currency: string };
  description?: string;
  recipient: { account_id: string; gateway_id: string };
  payment_method?: { type: string; id: string; saved: boolean; title: string; card: Record<string, string> };
  captured_at?: string;
  authorization_details?: { rrn: string; auth_code: string; three_d_secure: { applied: boolean } };
  created_at: string;
  expires_at?: string;
  confirmation?: { type: 'redirect'; confirmation_url: string; return_url?: string };
  test: boolean;
  refunded_amount?: { value: string; currency: string };
  refundable: boolean;
  metadata?: Record<string, string>;
  cancellation_details?: { party: string; reason: string };
}

interface Refund {
  id: string;
  payment_id: string;
  status: 'pending' | 'succeeded' | 'canceled';
  amount: { value: string; currency: string };
  created_at: string;
  description?: string;
  cancellation_details?: { party: string; reason: string };
  receipt_registration?: 'pending' | 'succeeded';
}

export type RefundOutcome = Refund['status'];

export interface YooKassaSandboxOptions {
  /** How a new refund is answered (default `succeeded`); `pending` ones are settled with POST /refunds/{id}/succeed|cancel. */
  refundOutcome?: () => RefundOutcome;
  /**
   * The shop sends receipts (54-FZ, "Receipts from YooKassa" or an online register): a payment without a valid
   * `receipt` is refused as YooKassa refuses it, and one whose items do not add up to the amount too.
   */
  fiscalisation?: boolean;
}

interface Shop {
  payments: Map<string, Payment>;
  refunds: Map<string, Refund>;
  /** Payments asked to save their method, by payment id. */
  saveRequested: Set<string>;
  savedMethods: Map<string, { type: string; title: string; card: Record<string, string> }>;
  idempotence: Map<string, { status: number; body: unknown }>;
  webhooks: { id: string; event: string; url: string }[];
}

const shops = new Map<string, Shop>();
const paymentShop = new Map<string, Shop>();

function shopOf(id: string): Shop {
  let shop = shops.get(id);
  if (!shop) {
    shop = {
      payments: new Map(),
      refunds: new Map(),
      saveRequested: new Set(),
      savedMethods: new Map(),
      idempotence: new Map(),
      webhooks: [],
    };
    shops.set(id, shop);
  }
  return shop;
}

/** YooKassa ids look like UUIDs with a fixed middle ("2d...-000f-5000-9000-..."). */
function yooId(): string {
  const hex = crypto.randomBytes(16).toString('hex');
  return `${hex.slice(0, 8)}-000f-5000-${hex[8] === '0' ? '8' : '9'}000-${hex.slice(20, 32)}`;
}

/** What an API call answers; `after` runs once the answer is sent (a notification follows the payment's change). */
interface Answer {
  status: number;
  body: unknown;
  after?: () => Promise<void>;
}

function apiError(status: number, code: string, description: string, parameter?: string): Answer {
  return { status, body: { type: 'error', id: yooId(), code, description, ...(parameter ? { parameter } : {}) } };
}

function authenticate(req: SandboxRequest): string | null {
  const m = /^Basic\s+(.+)$/i.exec(String(req.headers.authorization ?? ''));
  if (!m) return null;
  const [shopId, secret] = Buffer.from(m[1], 'base64').toString('utf8').split(':');
  return shopId && secret ? shopId : null;
}

function parseJson(body: Buffer): Record<string, unknown> | null {
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const validAmount = (a: unknown): a is { value: string; currency: string } =>
  typeof a === 'object' &&
  a !== null &&
  typeof (a as { value?: unknown }).value === 'string' &&
  /^\d+(\.\d{1,2})?$/.test((a as { value: string }).value) &&
  Number((a as { value: string }).value) > 0 &&
  typeof (a as { currency?: unknown }).currency === 'string' &&
  /^[A-Z]{3}$/.test((a as { currency: string }).currency);

const fixed = (value: string) => Number(value).toFixed(2);

const PAYMENT_SUBJECTS = new Set([
  'commodity',
  'excise',
  'job',
  'service',
  'gambling_bet',
  'gambling_prize',
  'lottery',
  'lottery_prize',
  'intellectual_activity',
  'payment',
  'agent_commission',
  'property_right',
  'non_operating_gain',
  'insurance_premium',
  'sales_tax',
  'resort_fee',
  'composite',
  'another',
  'fine',
  'tax',
  'lien',
  'cost',
  'pension_insurance_without_payouts',
  'pension_insurance_with_payouts',
  'health_insurance_without_payouts',
  'health_insurance_with_payouts',
  'health_insurance',
  'casino',
  'agent_withdrawals',
  'non_marked_excise',
  'marked_excise',
  'marked',
  'non_marked',
]);
const PAYMENT_MODES = new Set([
  'full_prepayment',
  'partial_prepayment',
  'advance',
  'full_payment',
  'partial_payment',
  'credit',
  'credit_payment',
]);

/**
 * A receipt as the API documents it: `customer` with an email or a phone; `items` (1-100), each with a
 * description (up to 128 characters), a positive quantity, an amount, a `vat_code` (1-12), and a valid
 * `payment_subject` and `payment_mode` when given; the items add up to the payment's amount. The refusal names the
 * parameter, as YooKassa does.
 */
function receiptProblem(receipt: unknown, total: { value: string; currency: string }): string | null {
  if (!receipt || typeof receipt !== 'object' || Array.isArray(receipt)) return 'receipt';
  const r = receipt as { customer?: { email?: unknown; phone?: unknown }; items?: unknown; email?: unknown; phone?: unknown };
  const email = r.customer?.email ?? r.email;
  const phone = r.customer?.phone ?? r.phone;
  const emailOk = typeof email === 'string' && /^[^@\s]+@[^@\s]+$/.test(email);
  const phoneOk = typeof phone === 'string' && /^\+?\d{10,15}$/.test(phone);
  if (!emailOk && !phoneOk) return 'receipt.customer';
  if (!Array.isArray(r.items) || r.items.length === 0 || r.items.length > 100) return 'receipt.items';
  let sum = 0;
  for (const item of r.items as Record<string, unknown>[]) {
    if (typeof item?.description !== 'string' || item.description.length === 0 || item.description.length > 128)
      return 'receipt.items.description';
    const quantity = Number(item.quantity);
    if (!Number.isFinite(quantity) || quantity <= 0) return 'receipt.items.quantity';
    if (!validAmount(item.amount) || item.amount.currency !== total.currency) return 'receipt.items.amount';
    if (!Number.isInteger(Number(item.vat_code)) || Number(item.vat_code) < 1 || Number(item.vat_code) > 12)
      return 'receipt.items.vat_code';
    if (item.payment_subject !== undefined && !PAYMENT_SUBJECTS.has(String(item.payment_subject))) return 'receipt.items.payment_subject';
    if (item.payment_mode !== undefined && !PAYMENT_MODES.has(String(item.payment_mode))) return 'receipt.items.payment_mode';
    sum += Math.round(Number(item.amount.value) * 100) * quantity;
  }
  if (Math.round(sum) !== Math.round(Number(total.value) * 100)) return 'receipt.items.amount';
  return null;
}

function receiptRefusal(parameter: string): Answer {
  return parameter === 'receipt'
    ? apiError(400, 'invalid_request', 'Receipt is missing or illegal', 'receipt')
    : apiError(
        400,
        'invalid_request',
        "Invalid parameter's value (for example, the value is illegal or its format is incorrect). Send the value in accordance with the documentation.",
        parameter,
      );
}

async function deliver(url: string, body: unknown): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Sends the event to every URL subscribed to it: the first attempt is awaited, failures are retried in the background. */
async function notify(shop: Shop, event: string, payment: Payment): Promise<void> {
  const body = { type: 'notification', event, object: payment };
  await Promise.all(
    shop.webhooks
      .filter((w) => w.event === event)
      .map(async (w) => {
        if (await deliver(w.url, body)) return;
        void (async () => {
          for (const delay of [500, 2000, 8000]) {
            await new Promise((r) => setTimeout(r, delay).unref());
            if (await deliver(w.url, body)) return;
          }
        })();
      }),
  );
}

function succeed(shop: Shop, p: Payment): void {
  const methodId = p.payment_method?.id ?? yooId();
  const saved = shop.saveRequested.has(p.id) || shop.savedMethods.has(methodId);
  const card = { first6: '220220', last4: '4444', expiry_month: '12', expiry_year: '2030', card_type: 'Mir' };
  p.payment_method = { type: 'bank_card', id: methodId, saved, title: 'Bank card *4444', card };
  if (saved) shop.savedMethods.set(methodId, { type: 'bank_card', title: 'Bank card *4444', card });
  p.paid = true;
  p.status = 'succeeded';
  p.authorization_details = {
    rrn: String(crypto.randomInt(10 ** 10, 10 ** 11)),
    auth_code: String(crypto.randomInt(100000, 999999)),
    three_d_secure: { applied: false },
  };
  p.captured_at = new Date().toISOString();
  p.refundable = true;
  p.income_amount = { value: (Number(p.amount.value) * 0.965).toFixed(2), currency: p.amount.currency };
  delete p.expires_at;
}

function createPayment(req: SandboxRequest, shopId: string, options: YooKassaSandboxOptions): Answer {
  const shop = shopOf(shopId);
  const body = parseJson(req.body);
  if (!body) return apiError(400, 'invalid_request', 'Request body is not valid JSON');
  if (!validAmount(body.amount)) return apiError(400, 'invalid_request', 'Invalid amount', 'amount');
  if (options.fiscalisation || body.receipt !== undefined) {
    const problem = receiptProblem(body.receipt, body.amount);
    if (problem) return receiptRefusal(body.receipt === undefined ? 'receipt' : problem);
  }
  const methodId = typeof body.payment_method_id === 'string' ? body.payment_method_id : undefined;
  const confirmation = body.confirmation as { type?: unknown; return_url?: unknown } | undefined;
  if (methodId && !shop.savedMethods.has(methodId))
    return apiError(400, 'invalid_request', 'Payment method is not saved', 'payment_method_id');
  if (!methodId) {
    if (!confirmation || confirmation.type !== 'redirect')
      return apiError(400, 'invalid_request', 'Confirmation type redirect is required in the sandbox', 'confirmation.type');
    if (typeof confirmation.return_url !== 'string' || !/^https?:\/\//.test(confirmation.return_url)) {
      return apiError(400, 'invalid_request', 'return_url is required for a redirect confirmation', 'confirmation.return_url');
    }
  }
  const id = yooId();
  const amount = { value: fixed(body.amount.value), currency: body.amount.currency };
  const p: Payment = {
    id,
    status: 'pending',
    paid: false,
    amount,
    ...(typeof body.description === 'string' ? { description: body.description.slice(0, 128) } : {}),
    recipient: { account_id: shopId, gateway_id: '100500' },
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
    test: true,
    refundable: false,
    ...(body.metadata && typeof body.metadata === 'object' ? { metadata: body.metadata as Record<string, string> } : {}),
  };
  shop.payments.set(id, p);
  paymentShop.set(id, shop);
  if (body.save_payment_method === true) shop.saveRequested.add(id);
  if (methodId) {
    p.payment_method = { type: 'bank_card', id: methodId, saved: true, title: 'Bank card *4444', card: {} };
    if (body.capture === false) {
      p.status = 'waiting_for_capture';
      p.paid = true;
    } else succeed(shop, p);
  } else {
    p.confirmation = { type: 'redirect', confirmation_url: `${req.mountUrl}/checkout/${id}`, return_url: String(confirmation?.return_url) };
  }
  return { status: 200, body: p, after: p.status === 'succeeded' ? () => notify(shop, 'payment.succeeded', p) : undefined };
}

/** Refunded so far, counting pending refunds (their money is on its way back and cannot be refunded twice). */
function committed(shop: Shop, paymentId: string): number {
  let sum = 0;
  for (const r of shop.refunds.values()) if (r.payment_id === paymentId && r.status !== 'canceled') sum += Number(r.amount.value);
  return sum;
}

function settleRefund(shop: Shop, refund: Refund, status: 'succeeded' | 'canceled'): void {
  if (refund.status !== 'pending') return;
  refund.status = status;
  if (status === 'canceled') refund.cancellation_details = { party: 'yoo_money', reason: 'rejected_by_payee' };
  const p = shop.payments.get(refund.payment_id);
  if (p && status === 'succeeded') {
    const already = Number(p.refunded_amount?.value ?? 0);
    p.refunded_amount = { value: (already + Number(refund.amount.value)).toFixed(2), currency: p.amount.currency };
  }
  if (p) p.refundable = committed(shop, p.id) < Number(p.amount.value);
}

function createRefund(req: SandboxRequest, shopId: string, options: YooKassaSandboxOptions): Answer {
  const shop = shopOf(shopId);
  const body = parseJson(req.body);
  if (!body) return apiError(400, 'invalid_request', 'Request body is not valid JSON');
  const p = typeof body.payment_id === 'string' ? shop.payments.get(body.payment_id) : undefined;
  if (!p) return apiError(400, 'invalid_request', 'Payment not found', 'payment_id');
  if (!validAmount(body.amount)) return apiError(400, 'invalid_request', 'Invalid amount', 'amount');
  if (p.status !== 'succeeded' || committed(shop, p.id) + Number(body.amount.value) > Number(p.amount.value) + 1e-9) {
    return apiError(400, 'invalid_request', 'The payment cannot be refunded for this amount', 'amount');
  }
  // A full refund may leave the receipt out (YooKassa takes the payment's); a partial one with fiscalisation may not.
  const full = Number(body.amount.value) === Number(p.amount.value);
  if (body.receipt !== undefined || (options.fiscalisation && !full)) {
    const problem = receiptProblem(body.receipt, body.amount);
    if (problem) return receiptRefusal(body.receipt === undefined ? 'receipt' : problem);
  }
  const outcome = options.refundOutcome?.() ?? 'succeeded';
  const refund: Refund = {
    id: yooId(),
    payment_id: p.id,
    status: 'pending',
    amount: { value: fixed(body.amount.value), currency: body.amount.currency },
    created_at: new Date().toISOString(),
    ...(typeof body.description === 'string' ? { description: body.description.slice(0, 250) } : {}),
    ...(body.receipt !== undefined || options.fiscalisation ? { receipt_registration: 'pending' as const } : {}),
  };
  shop.refunds.set(refund.id, refund);
  refundShop.set(refund.id, shop);
  if (outcome !== 'pending') settleRefund(shop, refund, outcome);
  else p.refundable = committed(shop, p.id) < Number(p.amount.value);
  return { status: 200, body: refund };
}

const refundShop = new Map<string, Shop>();

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function checkoutPage(res: ServerResponse, p: Payment): void {
  // Relative to the page (…/checkout/<id>), so the page works wherever it is served from (the service forwards it).
  const action = (what: string) => `${encodeURIComponent(p.id)}/${what}`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>YooKassa sandbox checkout</title></head><body>
<h1>YooKassa sandbox</h1><p>Nothing is charged: this is the built-in test checkout.</p>
<p>Payment <code>${escapeHtml(p.id)}</code>: <strong>${escapeHtml(p.amount.value)} ${escapeHtml(p.amount.currency)}</strong>${p.description ? ` — ${escapeHtml(p.description)}` : ''}</p>
<p>Status: <strong id="status">${p.status}</strong></p>
${
  p.status === 'pending'
    ? `<form method="post" action="${action('approve')}"><button type="submit" id="approve">Pay (test card *4444)</button></form>
<form method="post" action="${action('cancel')}"><button type="submit" id="cancel">Cancel</button></form>`
    : ''
}
</body></html>`;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

async function confirm(res: ServerResponse, p: Payment, approve: boolean): Promise<void> {
  const shop = paymentShop.get(p.id) as Shop;
  if (p.status === 'pending') {
    if (approve) {
      succeed(shop, p);
      await notify(shop, 'payment.succeeded', p);
    } else {
      p.status = 'canceled';
      p.cancellation_details = { party: 'yoo_money', reason: 'expired_on_confirmation' };
      delete p.expires_at;
      await notify(shop, 'payment.canceled', p);
    }
  }
  const back = p.confirmation?.return_url;
  // Without a return URL, back to the page (relative to …/checkout/<id>/<action>).
  res.writeHead(303, { location: back ?? `../${encodeURIComponent(p.id)}`, 'content-length': 0 });
  res.end();
}

function createWebhook(req: SandboxRequest, shop: Shop): Answer {
  const body = parseJson(req.body);
  if (!body || typeof body.event !== 'string' || typeof body.url !== 'string')
    return apiError(400, 'invalid_request', 'event and url are required');
  const existing = shop.webhooks.find((w) => w.event === body.event && w.url === body.url);
  const hook = existing ?? { id: `wh-${yooId()}`, event: body.event, url: body.url };
  if (!existing) shop.webhooks.push(hook);
  return { status: 200, body: hook };
}

/** POST: the Idempotence-Key is required; a repeated key answers the stored first answer and changes nothing. */
function post(req: SandboxRequest, shopId: string, path: string, options: YooKassaSandboxOptions): Answer {
  const shop = shopOf(shopId);
  const key = String(req.headers['idempotence-key'] ?? '');
  if (!key) return apiError(400, 'invalid_request', 'Idempotence key is required', 'Idempotence-Key');
  if (key.length > 64) return apiError(400, 'invalid_request', 'Idempotence key is too long', 'Idempotence-Key');
  const stored = shop.idempotence.get(`${path}|${key}`);
  if (stored) return stored;
  const answer =
    path === '/payments'
      ? createPayment(req, shopId, options)
      : path === '/refunds'
        ? createRefund(req, shopId, options)
        : path === '/webhooks'
          ? createWebhook(req, shop)
          : apiError(404, 'not_found', 'Unknown endpoint');
  if (answer.status === 200) shop.idempotence.set(`${path}|${key}`, { status: answer.status, body: answer.body });
  return answer;
}

function get(shopId: string, path: string): Answer {
  const shop = shopOf(shopId);
  const one = /^\/payments\/([A-Za-z0-9-]+)$/.exec(path);
  if (one) {
    const p = shop.payments.get(one[1]);
    return p ? { status: 200, body: p } : apiError(404, 'not_found', 'Payment not found or deleted');
  }
  const refund = /^\/refunds\/([A-Za-z0-9-]+)$/.exec(path);
  if (refund) {
    const r = shop.refunds.get(refund[1]);
    return r ? { status: 200, body: r } : apiError(404, 'not_found', 'Refund not found or deleted');
  }
  if (path === '/webhooks') return { status: 200, body: { type: 'list', items: shop.webhooks } };
  return apiError(404, 'not_found', 'Unknown endpoint');
}

function api(req: SandboxRequest, options: YooKassaSandboxOptions): Answer {
  if (!req.path.startsWith('/v3/')) return apiError(404, 'not_found', 'Unknown endpoint');
  const shopId = authenticate(req);
  if (!shopId) return apiError(401, 'invalid_credentials', 'Authentication by given credentials failed');
  const path = req.path.slice(3);
  if (req.method === 'POST') return post(req, shopId, path, options);
  if (req.method === 'GET') return get(shopId, path);
  return apiError(405, 'invalid_request', 'Method not allowed');
}

/** The fake, with how its refunds are answered and whether the shop sends receipts. */
export function createYooKassaSandbox(options: YooKassaSandboxOptions = {}): SandboxHandler {
  return async (req, res) => {
    const checkout = /^\/checkout\/([A-Za-z0-9-]+)(?:\/(approve|cancel))?$/.exec(req.path);
    if (checkout) {
      const p = paymentShop.get(checkout[1])?.payments.get(checkout[1]);
      if (!p) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such payment');
        return;
      }
      if (!checkout[2] && req.method === 'GET') return checkoutPage(res, p);
      if (checkout[2] && req.method === 'POST') return confirm(res, p, checkout[2] === 'approve');
      res.writeHead(405).end();
      return;
    }
    // The bank's side of a pending refund (a tester's action, like the checkout page): it goes through or not.
    const settle = /^\/refunds\/([A-Za-z0-9-]+)\/(succeed|cancel)$/.exec(req.path);
    if (settle && req.method === 'POST') {
      const shop = refundShop.get(settle[1]);
      const refund = shop?.refunds.get(settle[1]);
      if (!shop || !refund) return sendJson(res, 404, { type: 'error', code: 'not_found', description: 'Refund not found' });
      settleRefund(shop, refund, settle[2] === 'succeed' ? 'succeeded' : 'canceled');
      return sendJson(res, 200, refund);
    }
    const answer = api(req, options);
    sendJson(res, answer.status, answer.body);
    await answer.after?.();
  };
}

export const yookassaSandbox: SandboxHandler = createYooKassaSandbox();
